package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/domain"
	"pragmalab/store"
)

// validateDataPackage checks dir against the rules of Frictionless Data
// Package v1 and Table Schema v1 that `frictionless validate` checks for
// these files: the descriptor's required properties; every resource's
// file exists; a CSV resource's header equals its schema's field names in
// order; every cell parses as its field's type (an empty cell is the
// missing value) and meets the field's constraints (required, unique,
// enum, minimum, maximum); the primary key is unique and every foreign key
// refers to a row of the resource it names. It returns every violation.
func validateDataPackage(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	badf := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	raw, err := os.ReadFile(filepath.Join(dir, "datapackage.json"))
	if err != nil {
		return []string{err.Error()}
	}
	var dp struct {
		Name      string `json:"name"`
		Created   string `json:"created"`
		Resources []struct {
			Name     string `json:"name"`
			Path     string `json:"path"`
			Format   string `json:"format"`
			Encoding string `json:"encoding"`
			Profile  string `json:"profile"`
			Schema   *struct {
				Fields []struct {
					Name        string         `json:"name"`
					Type        string         `json:"type"`
					Description string         `json:"description"`
					TrueValues  []string       `json:"trueValues"`
					FalseValues []string       `json:"falseValues"`
					Constraints map[string]any `json:"constraints"`
				} `json:"fields"`
				PrimaryKey  []string `json:"primaryKey"`
				ForeignKeys []struct {
					Fields    []string `json:"fields"`
					Reference struct {
						Resource string   `json:"resource"`
						Fields   []string `json:"fields"`
					} `json:"reference"`
				} `json:"foreignKeys"`
				MissingValues []string `json:"missingValues"`
			} `json:"schema"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &dp); err != nil {
		return []string{"datapackage.json: " + err.Error()}
	}
	nameRE := regexp.MustCompile(`^[a-z0-9._-]+$`)
	if !nameRE.MatchString(dp.Name) {
		badf("package name %q: lower case, digits, '.', '-', '_' only", dp.Name)
	}
	if _, err := time.Parse(time.RFC3339, dp.Created); err != nil {
		badf("created %q: not RFC 3339", dp.Created)
	}
	if len(dp.Resources) == 0 {
		badf("no resources: the spec requires at least one")
	}
	tables := map[string][][]string{} // resource → rows incl. header
	seen := map[string]bool{}
	for _, r := range dp.Resources {
		if !nameRE.MatchString(r.Name) || seen[r.Name] {
			badf("resource name %q: missing, not url-safe lower case, or repeated", r.Name)
		}
		seen[r.Name] = true
		if r.Path == "" || filepath.IsAbs(r.Path) || strings.Contains(r.Path, "..") {
			badf("resource %s: path %q must be relative, inside the package", r.Name, r.Path)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Path)))
		if err != nil {
			badf("resource %s: %v", r.Name, err)
			continue
		}
		if r.Encoding != "utf-8" {
			badf("resource %s: encoding %q", r.Name, r.Encoding)
		}
		if r.Schema == nil {
			continue
		}
		if r.Format != "csv" || r.Profile != "tabular-data-resource" {
			badf("resource %s: a table must be format csv, profile tabular-data-resource", r.Name)
		}
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(recs) == 0 {
			badf("resource %s: not CSV with a header: %v", r.Name, err)
			continue
		}
		tables[r.Name] = recs
		var names []string
		for _, fd := range r.Schema.Fields {
			names = append(names, fd.Name)
			if fd.Description == "" {
				badf("%s.%s: no description", r.Name, fd.Name)
			}
		}
		if !slices.Equal(recs[0], names) {
			badf("resource %s: header %v is not the schema's fields %v", r.Name, recs[0], names)
			continue
		}
		for col, fd := range r.Schema.Fields {
			uniq := map[string]int{}
			for i, row := range recs[1:] {
				line := i + 2
				v := row[col]
				if v == "" || slices.Contains(r.Schema.MissingValues, v) {
					if fd.Constraints["required"] == true {
						badf("%s line %d, %s: required, but empty", r.Path, line, fd.Name)
					}
					continue
				}
				var num float64
				isNum := false
				switch fd.Type {
				case "string":
				case "integer":
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						badf("%s line %d, %s: %q is not an integer", r.Path, line, fd.Name, v)
						continue
					}
					num, isNum = float64(n), true
				case "number":
					n, err := strconv.ParseFloat(v, 64)
					if err != nil || math.IsNaN(n) {
						badf("%s line %d, %s: %q is not a number", r.Path, line, fd.Name, v)
						continue
					}
					num, isNum = n, true
				case "boolean":
					tv, fv := fd.TrueValues, fd.FalseValues
					if tv == nil {
						tv = []string{"true", "True", "TRUE", "1"}
					}
					if fv == nil {
						fv = []string{"false", "False", "FALSE", "0"}
					}
					if !slices.Contains(tv, v) && !slices.Contains(fv, v) {
						badf("%s line %d, %s: %q is not a boolean (%v/%v)", r.Path, line, fd.Name, v, tv, fv)
					}
				case "datetime":
					if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
						badf("%s line %d, %s: %q is not a datetime", r.Path, line, fd.Name, v)
					}
				default:
					badf("%s: %s has type %q, not one this package uses", r.Path, fd.Name, fd.Type)
				}
				if e, ok := fd.Constraints["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return x == v }) {
					badf("%s line %d, %s: %q is not one of %v", r.Path, line, fd.Name, v, e)
				}
				if lo, ok := fd.Constraints["minimum"].(float64); ok && isNum && num < lo {
					badf("%s line %d, %s: %v below the minimum %v", r.Path, line, fd.Name, v, lo)
				}
				if hi, ok := fd.Constraints["maximum"].(float64); ok && isNum && num > hi {
					badf("%s line %d, %s: %v above the maximum %v", r.Path, line, fd.Name, v, hi)
				}
				if fd.Constraints["unique"] == true {
					if l, ok := uniq[v]; ok {
						badf("%s line %d, %s: %q repeats line %d (unique)", r.Path, line, fd.Name, v, l)
					}
					uniq[v] = line
				}
			}
		}
		if pk := r.Schema.PrimaryKey; len(pk) > 0 {
			keys := map[string]int{}
			for i, row := range recs[1:] {
				k := strings.Join(pick(recs[0], row, pk), "\x00")
				if l, ok := keys[k]; ok {
					badf("%s line %d: primary key %v repeats line %d", r.Path, i+2, pk, l)
				}
				keys[k] = i + 2
			}
		}
	}
	for _, r := range dp.Resources {
		if r.Schema == nil {
			continue
		}
		for _, fk := range r.Schema.ForeignKeys {
			ref, ok := tables[fk.Reference.Resource]
			if !ok {
				badf("%s: foreign key to %q, no such table", r.Name, fk.Reference.Resource)
				continue
			}
			have := map[string]bool{}
			for _, row := range ref[1:] {
				have[strings.Join(pick(ref[0], row, fk.Reference.Fields), "\x00")] = true
			}
			recs := tables[r.Name]
			for i, row := range recs[1:] {
				if k := pick(recs[0], row, fk.Fields); !have[strings.Join(k, "\x00")] {
					badf("%s line %d: %v = %v is not in %s", r.Path, i+2, fk.Fields, k, fk.Reference.Resource)
				}
			}
		}
	}
	return bad
}

// pick returns row's values of the named columns.
func pick(header, row, cols []string) []string {
	var out []string
	for _, c := range cols {
		out = append(out, row[slices.Index(header, c)])
	}
	return out
}

// A crowd study's package holds the ratings, participants, items, design,
// codebook, methods and R companion, valid by the Data Package rules; the
// codebook describes every column of every table; without
// --with-prolific-ids no Prolific id of the database is anywhere in it,
// and with it they are there.
func TestExportPackageOfACrowdStudy(t *testing.T) {
	path, study := crowdScoreDB(t)
	sid := strconv.FormatInt(study, 10)
	dir := filepath.Join(t.TempDir(), "pkg")
	code, out, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", sid, "--what", "package", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "Wrote the data package") {
		t.Errorf("stdout: %q", out)
	}
	for _, name := range []string{"datapackage.json", "ratings.csv", "participants.csv", "items.csv", "design.json", "codebook.md", "methods.md", "r/analysis.R", "r/ratings.csv"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("the package lacks %s", name)
		} else if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is readable by others: %v", name, fi.Mode())
		}
	}
	if bad := validateDataPackage(t, dir); len(bad) > 0 {
		t.Errorf("the package breaks the Data Package rules:\n%s", strings.Join(bad, "\n"))
	}

	// The Prolific ids of the database (its participants export) appear
	// nowhere.
	code, plain, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", sid, "--what", "participants")
	if code != 0 {
		t.Fatalf("participants: exit %d\n%s", code, errOut)
	}
	pids, err := csvColumn([]byte(plain), "prolific_pid")
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) < 10 {
		t.Fatalf("the fixture has %d participants", len(pids))
	}
	found := func(root string) map[string]string {
		hits := map[string]string{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := os.ReadFile(p)
			for _, pid := range pids {
				if bytes.Contains(b, []byte(pid)) {
					hits[pid] = p
				}
			}
			return nil
		})
		return hits
	}
	if hits := found(dir); len(hits) > 0 {
		t.Errorf("Prolific ids in the package without --with-prolific-ids: %v", hits)
	}
	// The pseudonyms are the same in ratings and participants (the foreign
	// key, checked above) and in the R companion's data.
	parts, _ := os.ReadFile(filepath.Join(dir, "participants.csv"))
	rdata, _ := os.ReadFile(filepath.Join(dir, "r", "ratings.csv"))
	if !bytes.Contains(parts, []byte("\np001,")) || !bytes.Contains(rdata, []byte("p001")) {
		t.Errorf("no pseudonym p001 in participants.csv or r/ratings.csv")
	}

	// The codebook: every column of every table, the scale, the exclusions.
	cb, _ := os.ReadFile(filepath.Join(dir, "codebook.md"))
	var dp struct {
		Resources []struct {
			Path   string
			Schema *struct {
				Fields []struct{ Name, Description string }
			}
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "datapackage.json"))
	if err := json.Unmarshal(raw, &dp); err != nil {
		t.Fatal(err)
	}
	tablesSeen := 0
	for _, r := range dp.Resources {
		if r.Schema == nil {
			continue
		}
		tablesSeen++
		for _, fd := range r.Schema.Fields {
			if !bytes.Contains(cb, []byte("| `"+fd.Name+"` |")) || !bytes.Contains(cb, []byte(mdCell(fd.Description))) {
				t.Errorf("the codebook does not describe %s's %s as the schema does", r.Path, fd.Name)
			}
		}
	}
	if tablesSeen != 3 {
		t.Errorf("%d tables described, want ratings, participants, items", tablesSeen)
	}
	for _, want := range []string{"7-point scale", "| 1 | absolutely impossible (the language's default end label) |", "| 4 | (none: the number alone) |", "## Exclusions", "a low one at ≤", "No licence is set", "pseudonym", "design.json is the design file the study opened with", "Prolific codes (`completion_code`)", "data-quality rule", "pragmalab analyze toplines --ratings ratings.csv"} {
		if !bytes.Contains(cb, []byte(want)) {
			t.Errorf("the codebook lacks %q", want)
		}
	}

	// The design is the one kept at opening, byte for byte.
	code, opening, errOut := runCLI(t, "", nil, "study", "design", "--db", path, "--study", sid, "--at-opening")
	if code != 0 {
		t.Fatalf("study design --at-opening: exit %d\n%s", code, errOut)
	}
	if design, _ := os.ReadFile(filepath.Join(dir, "design.json")); string(design) != opening {
		t.Errorf("design.json is not the design kept at opening")
	}

	// With --with-prolific-ids the ids are there.
	dir2 := filepath.Join(t.TempDir(), "pkg-ids")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", sid, "--what", "package", "--out", dir2, "--with-prolific-ids"); code != 0 {
		t.Fatalf("--with-prolific-ids: exit %d\n%s", code, errOut)
	}
	if hits := found(dir2); len(hits) != len(pids) {
		t.Errorf("--with-prolific-ids: %d of %d ids in the package", len(hits), len(pids))
	}
	if bad := validateDataPackage(t, dir2); len(bad) > 0 {
		t.Errorf("--with-prolific-ids: the package breaks the rules:\n%s", strings.Join(bad, "\n"))
	}
	// An existing package is never written over.
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", sid, "--what", "package", "--out", dir); code != 2 || !strings.Contains(errOut, "already exists") {
		t.Errorf("an existing directory: exit %d, %s", code, errOut)
	}
}

// The validator fails on what breaks the rules, so its silence above
// means something: a header out of order, a rating above the scale, an
// unknown condition, a pseudonym missing from participants.
func TestValidateDataPackageCatchesBreaches(t *testing.T) {
	path, study := crowdScoreDB(t)
	dir := filepath.Join(t.TempDir(), "pkg")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", strconv.FormatInt(study, 10), "--what", "package", "--out", dir); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	orig, err := os.ReadFile(filepath.Join(dir, "ratings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(orig)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(recs[0], name) }
	for _, c := range []struct {
		name string
		edit func(r [][]string)
		want string
	}{
		{"rating 8 on 7 points", func(r [][]string) { r[1][col("rating")] = "8" }, "above the maximum"},
		{"rating not a number", func(r [][]string) { r[1][col("rating")] = "high" }, "not an integer"},
		{"unknown condition", func(r [][]string) { r[1][col("condition")] = "sideways" }, "is not one of"},
		{"unknown participant", func(r [][]string) { r[1][col("participant_id")] = "p999" }, "is not in participants"},
		{"header order", func(r [][]string) { r[0][0], r[0][1] = r[0][1], r[0][0] }, "is not the schema's fields"},
		{"bad time", func(r [][]string) { r[1][col("shown_at")] = "yesterday" }, "not a datetime"},
	} {
		cp := make([][]string, len(recs))
		for i := range recs {
			cp[i] = slices.Clone(recs[i])
		}
		c.edit(cp)
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.WriteAll(cp)
		if err := os.WriteFile(filepath.Join(dir, "ratings.csv"), b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		bad := validateDataPackage(t, dir)
		if !strings.Contains(strings.Join(bad, "\n"), c.want) {
			t.Errorf("%s: the validator said %v, want %q", c.name, bad, c.want)
		}
	}
	os.Remove(filepath.Join(dir, "items.csv"))
	if bad := validateDataPackage(t, dir); !strings.Contains(strings.Join(bad, "\n"), "items.csv") {
		t.Errorf("a missing file: %v", bad)
	}
}

// Another kind of study is refused with exit 2, saying the package is
// built for crowd and judgement studies; --what package without --out, and
// --with-prolific-ids elsewhere, are refused too.
func TestExportPackageRefusals(t *testing.T) {
	path, study := crowdScoreDB(t)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ex := &domain.Study{Kind: domain.KindExpert, Name: "experts", Lang: "en"}
	if err := db.CreateStudy(context.Background(), ex); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dir := filepath.Join(t.TempDir(), "pkg")
	code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", strconv.FormatInt(ex.ID, 10), "--what", "package", "--out", dir)
	if code != 2 || !strings.Contains(errOut, "package export is built for crowd and judgement studies") || !strings.Contains(errOut, "of kind expert") {
		t.Errorf("an expert study: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a refused export left %s", dir)
	}
	sid := strconv.FormatInt(study, 10)
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", sid, "--what", "package"); code != 2 || !strings.Contains(errOut, "needs --out DIR") {
		t.Errorf("no --out: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", sid, "--what", "ratings", "--with-prolific-ids"); code != 2 || !strings.Contains(errOut, "goes with --what package") {
		t.Errorf("--with-prolific-ids on ratings: exit %d, %s", code, errOut)
	}
}

// datapackage-js, the npm implementation of the Data Package v1 spec,
// passes the package (cli/testdata/datapackage-js, installed by .ci/run):
// the descriptor against its profile, every value of every table cast and
// checked against its constraints and keys. It fails the package where a
// rating is above the scale.
func TestExportPackageDatapackageJS(t *testing.T) {
	missing := func(what string) {
		const how = "run `npm install --no-package-lock` in cli/testdata/datapackage-js (.ci/run does)"
		if os.Getenv("CI") != "" {
			t.Fatalf("%s and CI is set: %s", what, how)
		}
		t.Skipf("%s: %s to validate the package with datapackage-js; validateDataPackage checks the spec's rules meanwhile", what, how)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	checker, err := filepath.Abs(filepath.Join("testdata", "datapackage-js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(checker, "node_modules", "datapackage")); err != nil {
		missing("datapackage-js is not installed")
	}
	path, study := crowdScoreDB(t)
	dir := filepath.Join(t.TempDir(), "pkg")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", strconv.FormatInt(study, 10), "--what", "package", "--out", dir); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	validate := func() (string, error) {
		out, err := exec.Command(node, filepath.Join(checker, "validate.js"), dir).CombinedOutput()
		return string(out), err
	}
	if out, err := validate(); err != nil || !strings.Contains(out, "ratings: ") || !strings.Contains(out, "participants: ") {
		t.Fatalf("datapackage-js: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ratings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	recs[1][slices.Index(recs[0], "rating")] = "8"
	var buf bytes.Buffer
	csv.NewWriter(&buf).WriteAll(recs)
	if err := os.WriteFile(filepath.Join(dir, "ratings.csv"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := validate(); err == nil || !strings.Contains(out, "maximum") {
		t.Errorf("datapackage-js passed a rating of 8 on 7 points: %v\n%s", err, out)
	}
}

// Where the frictionless command (the reference validator) is installed,
// it passes the package too.
func TestExportPackageFrictionlessValidate(t *testing.T) {
	bin, err := exec.LookPath("frictionless")
	if err != nil {
		t.Skip("frictionless is not installed (not in this machine's registries); validateDataPackage checks the rules instead")
	}
	path, study := crowdScoreDB(t)
	dir := filepath.Join(t.TempDir(), "pkg")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", strconv.FormatInt(study, 10), "--what", "package", "--out", dir); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	cmd := exec.Command(bin, "validate", "datapackage.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("frictionless validate: %v\n%s", err, out)
	}
}

// A crowd study nobody has rated yet, never opened: the package holds its
// files and the design as it is now, and the codebook says why the
// methods text and the R companion are missing instead of leaving a gap.
func TestExportPackageOfAStudyWithNothingYet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st := &domain.Study{Kind: domain.KindCrowd, Name: "Nothing yet", Lang: "en"}
	if err := db.CreateStudy(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dir := filepath.Join(t.TempDir(), "pkg")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", path, "--study", strconv.FormatInt(st.ID, 10), "--what", "package", "--out", dir); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if bad := validateDataPackage(t, dir); len(bad) > 0 {
		t.Errorf("the package breaks the rules:\n%s", strings.Join(bad, "\n"))
	}
	for _, absent := range []string{"methods.md", "r"} {
		if _, err := os.Stat(filepath.Join(dir, absent)); err == nil {
			t.Errorf("%s in the package of a study without ratings", absent)
		}
	}
	cb, _ := os.ReadFile(filepath.Join(dir, "codebook.md"))
	for _, want := range []string{"no methods text and no R companion", "design.json is the study's design as it is now"} {
		if !bytes.Contains(cb, []byte(want)) {
			t.Errorf("the codebook lacks %q:\n%s", want, cb)
		}
	}
}
