package cli

import (
	"flag"
	"fmt"
	"strings"
)

// dbFlag adds the --db flag shared by every subcommand that opens the
// database; PRAGMALAB_DB overrides its default.
func dbFlag(fs *flag.FlagSet, env *Env) *string {
	def := "pragmalab.db"
	if v := env.getenv("PRAGMALAB_DB"); v != "" {
		def = v
	}
	return fs.String("db", def, "SQLite database file (env PRAGMALAB_DB)")
}

// newFlagSet makes a flag set that reports errors instead of exiting.
func newFlagSet(name, usage string, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprint(env.stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning a bad flag into a usage error (exit 2)
// and rejecting stray arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return &usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func splitIDs(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}
