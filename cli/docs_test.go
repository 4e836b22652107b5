package cli

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// citation matches a docs/ page cited from code, with its optional anchor:
// docs/statistics.md#cohens-kappa.
var citation = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(#[A-Za-z0-9_-]+)?`)

// forbidden are the ways code used to cite what docs/ now holds: the product
// spec outside the repository, and issue numbers a reader of the code cannot
// look up. This file, which spells them out, is not checked.
var forbidden = regexp.MustCompile(`\bSPEC\b|\.\./shared|\bissue(?:'s| \d| #\d)|\bthe issue\b`)

// TestDocsCitations checks that every docs/ page and section the code cites
// exists, so a comment never sends a reader to a heading that was renamed,
// and that no comment cites the old spec or an issue number instead.
func TestDocsCitations(t *testing.T) {
	// The tests of package cli run in cli/; the repository is its parent.
	root := ".."
	anchors := map[string]map[string]bool{} // page → its heading anchors
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		a, err := headingAnchors(p)
		if err != nil {
			t.Fatal(err)
		}
		anchors[filepath.Base(p)] = a
	}
	if len(anchors) == 0 {
		t.Fatal("no docs/*.md found")
	}

	cited := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".templ", ".sql":
		default:
			return nil
		}
		self := filepath.Base(path) == "docs_test.go" && filepath.Base(filepath.Dir(path)) == "cli"
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, path)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			if !self && forbidden.MatchString(text) {
				t.Errorf("%s:%d cites %q; cite a docs/ section and say what is meant: %s",
					rel, line, forbidden.FindString(text), strings.TrimSpace(text))
			}
			if self {
				continue
			}
			for _, m := range citation.FindAllStringSubmatch(text, -1) {
				cited++
				page, anchor := m[1], strings.TrimPrefix(m[2], "#")
				a, ok := anchors[page]
				switch {
				case !ok:
					t.Errorf("%s:%d cites docs/%s, which does not exist", rel, line, page)
				case anchor != "" && !a[anchor]:
					t.Errorf("%s:%d cites docs/%s#%s, which is no heading of that page", rel, line, page, anchor)
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Fatal("no docs/ citation found in the code; is the repository root right?")
	}
}

// mdLink matches the target of a Markdown link: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks checks the links of README.md and docs/*.md: every page a
// link names exists, and so does every heading it points to.
func TestDocsLinks(t *testing.T) {
	root := ".."
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		a, err := headingAnchors(path)
		anchors[path] = a
		return a, err
	}
	links := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, target)
				continue
			}
			if anchor == "" || filepath.Ext(path) != ".md" {
				continue
			}
			a, err := anchorsOf(path)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s links to %s, which is no heading of that page", rel, target)
			}
		}
	}
	if links == 0 {
		t.Fatal("no links found in README.md and docs/")
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown
// file, skipping fenced code blocks.
func headingAnchors(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		if title == "" || !strings.HasPrefix(strings.TrimLeft(line, "#"), " ") {
			continue
		}
		slug := slugify(title)
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors, nil
}

// slugify turns a heading into its GitHub anchor: lower case, spaces to
// hyphens, every other punctuation mark dropped ("Cohen's kappa" →
// "cohens-kappa", "True/False metrics" → "truefalse-metrics").
func slugify(title string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			sb.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func TestSlugify(t *testing.T) {
	for title, want := range map[string]string{
		"Cohen's kappa":                       "cohens-kappa",
		"True/False metrics":                  "truefalse-metrics",
		"Human toplines beside model results": "human-toplines-beside-model-results",
		"IMPAQTS-PID TSV":                     "impaqts-pid-tsv",
		"Fleiss' kappa":                       "fleiss-kappa",
	} {
		if got := slugify(title); got != want {
			t.Errorf("slugify(%q) = %q, want %q", title, got, want)
		}
	}
}
