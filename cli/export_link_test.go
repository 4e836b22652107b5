package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportForceOntoSymlink (docs/deploy.md#outgoing-requests-and-exported-files): export --out LINK --force
// replaces the link with the export (mode 0600) and leaves the file the
// link pointed at, its content and its mode, as they were; without
// --force a link, even a dangling one, is an existing file and refused.
// A failed forced write leaves the file it would replace unchanged.
func TestExportForceOntoSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	link := filepath.Join(dir, "out.csv")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "id,rating\n"); return err }
	if err := writeOutFile(link, false, write); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("without --force onto a link: %v", err)
	}
	if err := writeOutFile(link, true, write); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "precious" {
		t.Fatalf("the link's target was written: %q", data)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
		t.Fatalf("the link's target's mode changed to %v", fi.Mode().Perm())
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("--out after --force: %v %v, want a regular file of mode 0600", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(link); string(data) != "id,rating\n" {
		t.Fatalf("export %q", data)
	}
	// A forced write that fails leaves the old export whole.
	fail := func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("the database went away") }
	if err := writeOutFile(link, true, fail); err == nil {
		t.Fatal("a failed write reported no error")
	}
	if data, _ := os.ReadFile(link); string(data) != "id,rating\n" {
		t.Fatalf("a failed forced write left %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("files left in the directory: %v", entries)
	}
	// A dangling link is refused without --force too.
	dangling := filepath.Join(dir, "dangling.csv")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	if err := writeOutFile(dangling, false, write); err == nil {
		t.Fatal("a dangling link was written through")
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("the dangling link's target was created")
	}
}
