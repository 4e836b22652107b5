package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"pragmalab/domain"
	"pragmalab/studies"
	"pragmalab/templates"
)

const studyUsage = `Usage: pragmalab study list|archive|clone|design|version|create|batches|pilot|open|pause|close [options]

  study list    [--archived] [--db FILE]
      every study in use (with --archived: the archived ones too) with its
      kind, state, items, people done / under way, answers and last activity
  study archive --study ID [--restore] [--db FILE]
      archive a study (hidden from the dashboard, read-only) or restore it
  study clone   --study ID [--name NAME] [--db FILE]
      a new study with the same design, settings and items, and no answers
  study design  --study ID [--at-opening | --version K] [--db FILE]
      print the study's design as JSON: kind, name, language, every
      setting with the texts, the items, how batches are built
      (docs/studies.md#design-file); --at-opening: the file the study
      opened with, as kept at its first opening (docs/studies.md#frozen-design);
      --version K: design version K's file, as kept when it started
  study version --study ID --design FILE [--db FILE]
      start the next design version of an opened crowd or judgement study
      with the file's language and settings (its items stay the study's):
      the current version's batches are retired, new ones are built with
      the study's seed (docs/studies.md#design-versions)
  study create  --design FILE [--name NAME] [--db FILE]
      a new draft study from a design file, all or nothing
  study batches --study ID [--db FILE]
      build the study's batches (or surveys) from its settings and seed
  study pilot   --study ID [--base URL] [--db FILE]
      a new pilot link: the real flow in any state, answers kept apart
  study open|pause|close --study ID [--db FILE]
      change the study's state; open runs the go-live checklist of the
      study's page and prints what is missing

`

// runStudy is `pragmalab study`.
func runStudy(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(env.stderr, studyUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usagef("study: say list, archive, clone, design, version, create, batches, pilot, open, pause or close")
	}
	action := args[0]
	fs := newFlagSet("study "+action, studyUsage, env)
	dbPath := dbFlag(fs, env)
	var studyID *int64
	var archived, restore *bool
	var name, designFile, base *string
	var atOpening *bool
	var version *int
	switch action {
	case "list":
		archived = fs.Bool("archived", false, "list the archived studies too")
	case "archive":
		studyID = fs.Int64("study", 0, "the study to archive")
		restore = fs.Bool("restore", false, "restore the archived study instead")
	case "clone":
		studyID = fs.Int64("study", 0, "the study to copy")
		name = fs.String("name", "", `name of the copy (default "Copy of …")`)
	case "design":
		studyID = fs.Int64("study", 0, "the study whose design to print")
		atOpening = fs.Bool("at-opening", false, "print the design file the study opened with, as it was kept (docs/studies.md#frozen-design)")
		version = fs.Int("version", 0, "print design version K's file, as kept when it started (docs/studies.md#design-versions)")
	case "version":
		studyID = fs.Int64("study", 0, "the study that starts a new design version")
		designFile = fs.String("design", "", "the design file (JSON) whose language and settings the new version has")
	case domain.StateOpen, "pause", "close":
		studyID = fs.Int64("study", 0, "the study whose state to change")
	case "batches":
		studyID = fs.Int64("study", 0, "the study whose batches to build")
	case "pilot":
		studyID = fs.Int64("study", 0, "the study to pilot")
		base = fs.String("base", defaultBase(env.getenv), "the server's public address (default: localhost at the PORT variable's port, else 8080, as serve listens)")
	case "create":
		designFile = fs.String("design", "", "the design file (JSON)")
		name = fs.String("name", "", "name of the new study (default: the file's)")
	default:
		fmt.Fprint(env.stderr, studyUsage)
		return usagef("study: unknown action %q (list, archive, clone, design, version, create, batches, pilot, open, pause, close)", action)
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if studyID != nil && *studyID <= 0 {
		return usagef("study %s: --study is required", action)
	}
	var design []byte
	if designFile != nil {
		if *designFile == "" {
			return usagef("study %s: --design is required", action)
		}
		var err error
		if design, err = os.ReadFile(*designFile); err != nil {
			return usagef("study %s: %v", action, err)
		}
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if studyID != nil {
		if _, err := svc.store.Study(ctx, *studyID); err != nil {
			return usagef("study %s: %s", action, domain.ErrorMessage(err))
		}
	}
	switch action {
	case "list":
		return listStudies(ctx, svc, env, *archived)
	case "batches":
		return buildBatches(ctx, svc, env, *studyID)
	case "pilot":
		return pilotLink(ctx, svc, env, *studyID, *base)
	case domain.StateOpen, "pause", "close":
		return setStudyState(ctx, svc, env, *studyID, map[string]string{domain.StateOpen: domain.StateOpen, "pause": domain.StatePaused, "close": domain.StateClosed}[action])
	case "version":
		k, b, err := svc.StartDesignVersionFromFile(ctx, *studyID, design)
		if err != nil {
			if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ECONFLICT {
				return usagef("study version: %s: %s", *designFile, domain.ErrorMessage(err))
			}
			return err
		}
		if err := svc.store.Audit(ctx, cliActor, *studyID, "start design version", studies.AuditDesignVersion(k, b)+" (from "+filepath.Base(*designFile)+")"); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Study %d started design version %d from %s: %s; the batches of version %d are retired, newcomers are given version %d's.\n",
			*studyID, k, *designFile, b.Design(), k-1, k)
		return nil
	case "design":
		if *version != 0 && *atOpening {
			return usagef("study design: say --at-opening or --version, not both")
		}
		if *version < 0 {
			return usagef("study design: --version must be 1 or more, got %d", *version)
		}
		if *version > 0 {
			b, err := svc.store.DesignVersionFile(ctx, *studyID, *version)
			if err != nil {
				if domain.ErrorCode(err) == domain.ENOTFOUND {
					return usagef("study design: %s", domain.ErrorMessage(err))
				}
				return err
			}
			_, err = env.stdout.Write(b)
			return err
		}
		if *atOpening {
			b, _, err := svc.store.OpeningDesign(ctx, *studyID)
			if err != nil {
				return err
			}
			_, err = env.stdout.Write(b)
			return err
		}
		d, err := svc.StudyDesign(ctx, *studyID)
		if err != nil {
			return err
		}
		return studies.WriteDesign(env.stdout, d)
	case "create":
		st, n, err := svc.CreateStudyFromDesign(ctx, design, *name)
		if err != nil {
			if domain.ErrorCode(err) == domain.EINVALID {
				return usagef("study create: %s: %s; nothing was created", *designFile, domain.ErrorMessage(err))
			}
			return err
		}
		if err := svc.store.Audit(ctx, cliActor, st.ID, "create study from design", studies.AuditStudyFromDesign(st, filepath.Base(*designFile), n)); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Study %d %q created from %s: a %s study in draft, %s.\n", st.ID, st.Name, *designFile, st.Kind, n)
		return nil
	case "archive":
		if err := svc.ArchiveOrRestoreStudy(ctx, cliActor, *studyID, *restore); err != nil {
			return err
		}
		if *restore {
			fmt.Fprintf(env.stdout, "Study %d restored.\n", *studyID)
		} else {
			fmt.Fprintf(env.stdout, "Study %d archived: hidden from the dashboard and read-only (restore with --restore).\n", *studyID)
		}
		return nil
	default: // clone
		c, err := svc.CopyStudy(ctx, cliActor, *studyID, *name)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Study %d %q created from study %d: same design and items, no answers.\n", c.ID, c.Name, *studyID)
		return nil
	}
}

// setStudyState moves a study to state as the page's buttons do: to open
// only through the go-live checklist, whose open points it prints.
func setStudyState(ctx context.Context, svc *app, env *Env, id int64, state string) error {
	st, err := svc.store.Study(ctx, id)
	if err != nil {
		return err
	}
	if state == domain.StateOpen {
		panel, err := svc.StudyState(ctx, st)
		if err != nil {
			return err
		}
		if len(panel.Missing) > 0 {
			fmt.Fprintf(env.stdout, "Study %d %q cannot open yet. Missing:\n", id, domain.TerminalSafe(st.Name))
			for _, m := range panel.Missing {
				fmt.Fprintf(env.stdout, "  - %s\n", m)
			}
			return domain.Errorf(domain.ECONFLICT, "study %d stays %s: %d point(s) of the checklist missing", id, st.State, len(panel.Missing))
		}
	}
	if err := svc.SetStudyState(ctx, st, state, cliActor); err != nil {
		return err
	}
	if err := svc.store.Audit(ctx, cliActor, id, "change study state", fmt.Sprintf("%s → %s", st.State, state)); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Study %d %q is %s.\n", id, domain.TerminalSafe(st.Name), state)
	return nil
}

// listStudies prints the dashboard as a table.
func listStudies(ctx context.Context, svc *app, env *Env, archived bool) error {
	all, err := svc.store.Dashboard(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATE\tITEMS\tDONE/UNDER WAY\tANSWERS\tNOT EXPORTED\tLAST ACTIVITY\tNAME")
	for _, o := range all {
		if o.Study.Archived() && !archived {
			continue
		}
		// Names are escaped: a line break must not break the table, nor
		// an escape sequence reach the terminal.
		state, last, name := o.State, "-", domain.TerminalSafe(o.Study.Name)
		if state == "" {
			state = "-"
		}
		if !o.Last.IsZero() {
			last = o.Last.Format("2006-01-02 15:04")
		}
		if o.Study.Archived() {
			name += " (archived)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d/%d\t%d\t%d\t%s\t%s\n", o.Study.ID, o.Study.Kind, state, o.Items,
			o.Done, o.UnderWay, o.Answers, o.Unexported, last, name)
	}
	return tw.Flush()
}

const linksUsage = `Usage: pragmalab links --study ID [--base URL] [--db FILE]

Lists a study's invitation links again: one line per expert (name, link),
or for a crowd study the address to paste into Prolific. --base is the
address participants reach the server at.

`

// runLinks is `pragmalab links`.
func runLinks(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("links", linksUsage, env)
	studyID := fs.Int64("study", 0, "the study whose links to list")
	base := fs.String("base", defaultBase(env.getenv), "the server's public address (default: localhost at the PORT variable's port, else 8080, as serve listens)")
	dbPath := dbFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *studyID <= 0 {
		return usagef("links: --study is required")
	}
	b := strings.TrimRight(*base, "/")
	if !strings.HasPrefix(b, "http://") && !strings.HasPrefix(b, "https://") {
		return usagef("links: --base %q must start with http:// or https://", *base)
	}
	svc, err := openApp(ctx, *dbPath, studies.OpenOptions{})
	if err != nil {
		return err
	}
	defer svc.Close()
	s, err := svc.store.Study(ctx, *studyID)
	if err != nil {
		return usagef("links: %s", domain.ErrorMessage(err))
	}
	if domain.IsCrowdKind(s.Kind) {
		fmt.Fprintf(env.stdout, "Prolific study URL of %q:\n%s\n", s.Name, templates.CrowdStudyEntryURL(b, s.ID))
		return nil
	}
	people, err := svc.store.Annotators(ctx, s.ID)
	if err != nil {
		return err
	}
	if len(people) == 0 {
		fmt.Fprintf(env.stderr, "Study %d %q has no experts invited yet.\n", s.ID, s.Name)
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	for _, a := range people {
		link := templates.PersonURL(s.Kind, b, a.Token)
		if a.Revoked {
			link = "(revoked: re-issue a link on the study page)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", domain.TerminalSafe(a.Name), link)
	}
	return tw.Flush()
}
