package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"pragmalab/analysis"
	"pragmalab/analysis/integrity"
	"pragmalab/analysis/report"
	"pragmalab/domain"
)

const analyzeIntegrityUsage = `Usage: pragmalab analyze integrity --ratings FILE [--models FILE [--reference FILE]] [--json|--methods text|markdown] [options]

The integrity flags of each participant of a crowd ratings export
(docs/statistics.md#integrity-flags): honeypot, synthetic_input,
webdriver, paste_in_text and no_pointer_or_key from the integrity signals
(an empty signal is never evidence), speed and straight_line from the
data-quality rules given below (off unless set, as in a study's settings),
and with --models, llm_echo: the participant's ratings echo a model's
answers. With --reference, a ratings file of humans the researcher trusts
(a vetted pilot, a lab panel) on the same items, llm_echo compares each
participant with them (docs/statistics.md#llm-echo-against-a-reference);
without it, with the pool's own other participants (Correlated Agreement,
docs/statistics.md#llm-echo), which agents in the majority defeat. A flag
is evidence for the researcher, never a decision.

The ratings file is the ratings export (docs/formats.md#ratings-file); the
models file has the columns model, item_id and number or label, and
optionally condition: a likert job's results CSV as it is, or the
alt-test's model,item_id,label (docs/formats.md#models-file).

Options:
`

// analyzeIntegrity runs "analyze integrity".
func analyzeIntegrity(args []string, env *Env) error {
	fs := newFlagSet("analyze integrity", analyzeIntegrityUsage, env)
	var ratingsPath, modelsPath, referencePath, methods string
	fs.StringVar(&ratingsPath, "ratings", "", `the crowd ratings export (CSV; "-" for standard input)`)
	fs.StringVar(&modelsPath, "models", "", "the models' answers: model, item_id, number or label[, condition] (CSV); without it llm_echo is not assessed")
	fs.StringVar(&referencePath, "reference", "", "llm_echo: ratings of trusted humans on the same items (the ratings file's format); without it the pool's own humans, with a caveat")
	fs.StringVar(&methods, "methods", "", `print the methods paragraph with the numbers filled in: "text" or "markdown"`)
	asJSON := fs.Bool("json", false, "print the result as JSON (docs/formats.md#integrity-json)")
	opt := integrity.IntegrityOptions{Echo: integrity.DefaultEchoOptions(), Quality: domain.CrowdSettings{FastMS: domain.DefaultFastMS}, Fit: integrity.DefaultFitOptions()}
	fs.IntVar(&opt.Echo.Points, "points", opt.Echo.Points, "the rating scale's points")
	fs.IntVar(&opt.Echo.MinItems, "min-items", opt.Echo.MinItems, "llm_echo: assess a participant on at least this many items rated by the model and another human")
	fs.Float64Var(&opt.Echo.MinGap, "min-gap", opt.Echo.MinGap, "llm_echo: the agreement with the model minus the agreement with the other humans must reach this")
	fs.Float64Var(&opt.Echo.MinExcess, "min-excess", opt.Echo.MinExcess, "llm_echo: the agreement with the model minus the other humans' agreement with it must reach this")
	fs.Float64Var(&opt.Echo.Alpha, "alpha", opt.Echo.Alpha, "llm_echo: differences from the model agreeing with the humans above chance at this level are independent signal; with --reference, the family-wise level of the test over the models")
	fs.Float64Var(&opt.Fit.MinFollow, "min-follow", opt.Fit.MinFollow, "llm_echo with --reference: the slope on the model beyond the trusted humans (a copy 1, an honest rater 0) must reach this")
	fs.IntVar(&opt.Quality.FastMS, "fast-ms", opt.Quality.FastMS, "an answer faster than this (ms) is fast")
	fs.IntVar(&opt.Quality.ExcludeFastPercent, "fast-percent", 0, "speed: flag at this share (%) of fast answers or more (0: off)")
	fs.IntVar(&opt.Quality.ExcludeMedianRT, "median-rt-ms", 0, "speed: flag a median response time below this (ms; 0: off)")
	fs.IntVar(&opt.Quality.ExcludeRun, "identical-run", 0, "straight_line: flag this many identical ratings in a row or more (0: off)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkIntegrityFlags(ratingsPath, modelsPath, opt); err != nil {
		return err
	}
	if err := checkReferenceFlags(referencePath, ratingsPath, modelsPath, methods, *asJSON, &opt); err != nil {
		return err
	}
	rows, err := readIntegrityFile(ratingsPath, env, integrity.ReadIntegrityRatings)
	if err != nil {
		return err
	}
	if err := checkScale(rows, ratingsPath, opt.Echo.Points); err != nil {
		return err
	}
	var answers []integrity.ModelAnswer
	if modelsPath != "" {
		answers, err = readIntegrityFile(modelsPath, env, func(r io.Reader) ([]integrity.ModelAnswer, error) {
			return integrity.ReadModelAnswers(r, opt.Echo.Points)
		})
		if err != nil {
			return err
		}
		if err := checkModelsMatch(rows, answers, modelsPath); err != nil {
			return err
		}
	}
	if opt.Reference, err = readReference(referencePath, rows, opt.Echo.Points, env); err != nil {
		return err
	}
	res := integrity.Integrity(rows, answers, opt)
	var out bytes.Buffer
	echo := echoSummaryOf(res, answers, opt)
	switch {
	case *asJSON:
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(integrityJSON{Options: opt.Echo, Echo: echo, Participants: res}); err != nil {
			return fmt.Errorf("analyze integrity: encode JSON: %w", err)
		}
	case methods != "":
		out.WriteString(integrityMethods(res, echo, methods == "markdown"))
	default:
		t := report.IntegrityTable(res)
		if len(opt.Reference) > 0 {
			t = report.IntegrityReferenceTable(res)
		}
		if echo.Caveat != "" {
			t.Notes = append([]string{echo.Caveat}, t.Notes...)
		}
		if err := t.WriteText(&out); err != nil {
			return err
		}
	}
	_, err = env.stdout.Write(out.Bytes())
	return err
}

// integrityJSON is the --json output (docs/formats.md#integrity-json).
type integrityJSON struct {
	Options      integrity.EchoOptions            `json:"llm_echo_options"`
	Echo         echoSummary                      `json:"llm_echo_summary"`
	Participants []integrity.ParticipantIntegrity `json:"participants"`
}

func checkIntegrityFlags(ratings, models string, opt integrity.IntegrityOptions) error {
	switch {
	case ratings == "":
		return usagef("analyze integrity: --ratings FILE is required")
	case ratings == "-" && models == "-":
		return usagef("analyze integrity: only one of --ratings and --models can read standard input")
	case opt.Quality.FastMS < 1 || opt.Quality.ExcludeFastPercent < 0 || opt.Quality.ExcludeFastPercent > 100 ||
		opt.Quality.ExcludeMedianRT < 0 || opt.Quality.ExcludeRun < 0:
		return usagef("analyze integrity: --fast-ms must be at least 1, --fast-percent 0–100, --median-rt-ms and --identical-run at least 0")
	}
	if err := opt.Echo.Validate(); err != nil {
		return usagef("analyze integrity: --%v", err)
	}
	return nil
}

// checkScale refuses a rating above the scale's points, naming its line.
func checkScale(rows []integrity.IntegrityRow, path string, points int) error {
	for _, r := range rows {
		if r.Rating > points {
			return usagef("%s: line %d, column \"rating\": rating %d is above the scale's %d points (--points)", fileLabel(path), r.Line, r.Rating, points)
		}
	}
	return nil
}

// checkModelsMatch refuses a model none of whose answers is an item of
// the ratings: a wrong file or mistyped ids would otherwise pass silently
// as "not assessed".
func checkModelsMatch(rows []integrity.IntegrityRow, answers []integrity.ModelAnswer, path string) error {
	var data []integrity.EchoRating
	for _, r := range rows {
		if r.Check == "" {
			data = append(data, integrity.EchoRating{Participant: r.Participant, Item: r.Item, Condition: r.Condition, Rating: r.Rating})
		}
	}
	bad := integrity.ModelsMatchingNothing(data, answers)
	if len(bad) == 0 {
		return nil
	}
	line := 0
	for _, a := range answers {
		if a.Model == bad[0] {
			line = a.Line
			break
		}
	}
	return usagef("%s: line %d: model %q answers no item (and condition) of the ratings file (%s)", fileLabel(path), line, bad[0], strings.Join(bad, ", "))
}

func fileLabel(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// readIntegrityFile opens one input and reads it; bad input is a usage
// error naming the file, line and column.
func readIntegrityFile[T any](path string, env *Env, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	var r io.Reader = env.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return zero, usagef("analyze integrity: %v", err)
		}
		defer f.Close()
		r = f
	}
	v, err := read(r)
	var ie *analysis.InputError
	if errors.As(err, &ie) {
		return zero, usagef("%s: %v", fileLabel(path), ie)
	}
	if err != nil {
		return zero, fmt.Errorf("%s: %w", fileLabel(path), err)
	}
	return v, nil
}
