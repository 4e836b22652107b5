package cli

import (
	"context"
	"flag"
	"fmt"
)

const benchUsage = `Usage: pragmalab bench NAME [options]

Benchmarks whose figures the README reports, measured on this machine:
  toplines   analyze toplines on a synthetic 1,000,000-row ratings file
  import     import a 31,822-row IMPAQTS-PID file of the published shape
  load       N simulated Prolific participants over loopback HTTP
  ceiling    the same participants against a plain net/http + SQLite server
  scoring    a 3,252-prompt True/False job against a 20 ms fake model server
  analysis   an Analysis page and its figures against one analysis of a crowd study
  coverage   the coverage of every 95 % interval on simulated studies with a known truth
  quality    Dawid–Skene and MACE on 100,000 judgements by 50 annotators
  replication  the replica's lag and the answers at risk under bench load's participants
  alt-test   analyze alt-test on 200 humans × 2,000 items × 5 models
  integrity  LLM-echo's detection and false-flag rates on thousands of simulated studies

Run "pragmalab bench NAME --help" for the options of each.
`

// runBench dispatches to one benchmark; each lives beside its area.
func runBench(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.stdout, benchUsage)
		if len(args) == 0 {
			return usagef("bench: name a benchmark")
		}
		return flag.ErrHelp
	}
	name, rest := args[0], args[1:]
	if run, ok := benchmarks()[name]; ok {
		return run(ctx, rest, env)
	}
	return usagef("bench: unknown benchmark %q (toplines, import, load, ceiling, scoring, analysis, coverage, quality, replication, alt-test, integrity)", name)
}

// benchmarks are the benchmarks runBench dispatches to, by name.
func benchmarks() map[string]func(context.Context, []string, *Env) error {
	return map[string]func(context.Context, []string, *Env) error{
		"toplines":    benchToplines,
		"import":      benchImport,
		"load":        benchLoad,
		"ceiling":     benchCeiling,
		"scoring":     benchScoring,
		"analysis":    benchAnalysis,
		"coverage":    benchCoverage,
		"quality":     benchQuality,
		"replication": benchReplication,
		"alt-test":    benchAltTest,
		"integrity":   benchIntegrity,
	}
}
