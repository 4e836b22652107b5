// Package cli holds pragmalab's command line: every subcommand, the
// benchmarks and the demo seeding. main.go only calls Main; tests call Run
// in-process with an Env of their own. The commands are described in
// docs/cli.md.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Main runs the command line with the process's arguments, environment and
// standard streams, and returns the exit status.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &Env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	return exitCode(env.stderr, Run(ctx, os.Args[1:], env))
}

// Env carries what a subcommand may touch of the outside world, so tests can
// run every subcommand in-process.
type Env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// actor is who the audit log names for a command: "cli", or "cli:" and
// the user running it when $USER is set.
func (env *Env) actor() string {
	if u := env.getenv("USER"); u != "" {
		return "cli:" + u
	}
	return "cli"
}

// usageError marks bad input or bad usage: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

// exitCode prints err (if any) to stderr and maps it to the exit status of
// docs/cli.md#exit-status: 0 on success or --help, 2 for bad input or
// usage, 1 otherwise.
func exitCode(stderr io.Writer, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "pragmalab: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

const topUsage = `pragmalab — human studies and model scoring for pragmatics benchmarks

Usage:
  pragmalab serve    [options]      the web application (the default command)
  pragmalab analyze  toplines|agreement|context|explanations|reliability|alt-test|plan [options]
  pragmalab score    [options]      run a model-scoring job
  pragmalab import   [options]      import items or passages into a study
  pragmalab export   [options]      export a study's data
  pragmalab study    list|archive|clone|design|create|batches|pilot|open|pause|close [options]
  pragmalab links    --study ID     list a study's invitation links again
  pragmalab admin    create|reset-password [options]
  pragmalab backup   --out FILE     online backup of the database
  pragmalab restore  --replica URL  restore the database from its Litestream replica
  pragmalab bench    NAME [options] run a performance benchmark
  pragmalab prolific ACTION --study ID  Prolific's API: check, sync, approve, reject, bonus, pay
  pragmalab sign-in  list|allow|remove|check  who may sign in through the identity provider

Every subcommand has --help.
`

// Run parses the subcommand and hands over to it.
func Run(ctx context.Context, args []string, env *Env) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd, args = "help", args[1:]
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	if run, ok := subcommands()[cmd]; ok {
		return run(ctx, args, env)
	}
	if cmd == "help" {
		fmt.Fprint(env.stdout, topUsage)
		return nil
	}
	fmt.Fprint(env.stderr, topUsage)
	return usagef("unknown command %q", cmd)
}

// subcommands are the commands Run hands over to, by name.
func subcommands() map[string]func(context.Context, []string, *Env) error {
	return map[string]func(context.Context, []string, *Env) error{
		"serve":    runServe,
		"analyze":  runAnalyze,
		"score":    runScore,
		"import":   runImport,
		"export":   runExport,
		"admin":    runAdmin,
		"study":    runStudy,
		"links":    runLinks,
		"backup":   runBackup,
		"restore":  runRestore,
		"bench":    runBench,
		"prolific": runProlific,
		"sign-in":  runSignIn,
	}
}
