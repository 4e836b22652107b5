package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/studies"
)

// benchImport measures the import of a published-size IMPAQTS-PID file
// (the sample repeated with fresh ids): parsing, sentence splitting and the
// insert into a fresh database, against the 10 s target of docs/benchmarks.
func benchImport(ctx context.Context, args []string, env *Env) error {
	fs := flag.NewFlagSet("bench import", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	rows := fs.Int("rows", itemfiles.PublishedPassageRows, "rows in the synthetic file")
	sample := fs.String("sample", "", "the IMPAQTS-PID sample TSV to repeat (default: the sample built into the binary for the demo)")
	target := fs.Duration("target", 10*time.Second, "the time the whole import must stay under")
	fs.Usage = func() {
		fmt.Fprintln(env.stderr, "Usage: pragmalab bench import [--rows 31822] [--sample FILE] [--target 10s]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench import: unexpected argument %q", fs.Arg(0))
	}
	if *rows < 1 {
		return usagef("bench import: --rows must be at least 1")
	}
	data, src, err := readImpaqtsSample(*sample)
	if err != nil {
		return err
	}
	file, err := itemfiles.SynthesizePassagesTSV(data, *rows)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "pragmalab-bench-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	svc, err := openApp(ctx, filepath.Join(dir, "bench.db"), studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	study := &domain.Study{Kind: domain.KindContext, Name: "bench import", Lang: "it"}
	if err := svc.store.CreateStudy(ctx, study); err != nil {
		return err
	}

	start := time.Now()
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(file))
	if err != nil {
		return fmt.Errorf("bench import: %w", err)
	}
	parsed := time.Now()
	if err := svc.store.ImportPassages(ctx, study.ID, ps); err != nil {
		return fmt.Errorf("bench import: %w", err)
	}
	done := time.Now()
	sentences := 0
	for _, p := range ps {
		sentences += len(p.Sentences)
	}
	total := done.Sub(start)
	fmt.Fprintf(env.stdout, "import of %d IMPAQTS-PID rows (%.1f MB, repeated from %s)\n", len(ps), float64(len(file))/1e6, src)
	fmt.Fprintf(env.stdout, "  parse + sentence split: %8.3f s (%d sentences)\n", parsed.Sub(start).Seconds(), sentences)
	fmt.Fprintf(env.stdout, "  database insert:        %8.3f s\n", done.Sub(parsed).Seconds())
	fmt.Fprintf(env.stdout, "  total:                  %8.3f s (target < %s)\n", total.Seconds(), *target)
	if total >= *target {
		return fmt.Errorf("bench import: %.3f s is over the %s target", total.Seconds(), *target)
	}
	return nil
}

func readImpaqtsSample(path string) ([]byte, string, error) {
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, "", usagef("bench import: %v", err)
		}
		return b, path, nil
	}
	return demoPassages, "the built-in IMPAQTS-PID sample (cli/demo)", nil
}
