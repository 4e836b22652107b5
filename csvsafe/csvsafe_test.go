package csvsafe

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"=1+1", "'=1+1"},
		{"+SUM(A1)", "'+SUM(A1)"},
		{"-foo", "'-foo"},
		{"@cmd", "'@cmd"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"'=x", "''=x"},
		{"-1.5", "-1.5"},
		{"+3", "+3"},
		{"-2e-4", "-2e-4"},
		{"-", "'-"},
		{"-Inf", "'-Inf"},
		{"'-1.5", "''-1.5"},
		{"'Twas", "'Twas"},
		{"don't", "don't"},
		{"plain", "plain"},
		{"", ""},
		{"'", "'"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Unquote(Quote(c.in)); got != c.in {
			t.Errorf("Unquote(Quote(%q)) = %q", c.in, got)
		}
	}
}

func TestWriterRoundTrip(t *testing.T) {
	rec := []string{"=1+1", "-foo", "-1.5", "a,b", "'=x", "@SUM(1)"}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteAll([][]string{rec}); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).Read()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c != "-1.5" && c != "a,b" && c[0] != '\'' {
			t.Errorf("cell %d written %q: a spreadsheet would run it", i, c)
		}
		if Unquote(c) != rec[i] {
			t.Errorf("cell %d: %q read back as %q", i, rec[i], Unquote(c))
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"=1", "'=1", "''+", "-1.5", "'-1.5", "'Twas", "-", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := Unquote(Quote(s)); got != s {
			t.Fatalf("Unquote(Quote(%q)) = %q", s, got)
		}
		q := Quote(s)
		if q != "" && !IsNumber(q) && (q[0] == '=' || q[0] == '+' || q[0] == '-' || q[0] == '@' || q[0] == '\t' || q[0] == '\r') {
			t.Fatalf("Quote(%q) = %q starts a formula", s, q)
		}
	})
}

// TestEveryExportUsesThisWriter: no program file writes CSV with
// encoding/csv directly, so no export can skip the neutralisation.
func TestEveryExportUsesThisWriter(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "csvsafe" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("csv.NewWriter(")) {
			t.Errorf("%s writes CSV with encoding/csv; use csvsafe.NewWriter", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIsNumber pins the grammar IsNumber shares between its mantissa and
// exponent scanners.
func TestIsNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-1.5": true, "+.5": true, "3.": true, "1e9": true, "2.5E-3": true, "-7e+2": true,
		"": false, "-": false, ".": false, "1.2.3": false, "1e": false, "1e+": false, "e5": false,
		"Inf": false, "NaN": false, "0x1F": false, "1 ": false, "1e5x": false,
	} {
		if got := IsNumber(s); got != want {
			t.Errorf("IsNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
