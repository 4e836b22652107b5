//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"pragmalab/store"
)

// openPTY opens a pseudo-terminal: the master end the test types into
// and reads the screen from, and the terminal the command reads.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { tty.Close(); master.Close() })
	return master, tty
}

// TestResetPasswordDoesNotEchoOnATerminal types a new password on a
// terminal: it must not appear on the screen, and it must work.
func TestResetPasswordDoesNotEchoOnATerminal(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "p.db")
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	db.CreateAdmin(context.Background(), "lea", "an old password")
	db.Close()

	master, tty := openPTY(t)
	const secret = "a brand new secret"
	screen := make(chan []byte)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 1024)
		for {
			// ends with EIO once the terminal side is closed
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		screen <- b.Bytes()
	}()
	go func() {
		// typed after the prompt, as a person would
		time.Sleep(200 * time.Millisecond)
		master.Write([]byte(secret + "\n"))
		time.Sleep(200 * time.Millisecond)
		master.Write([]byte(secret + "\n"))
	}()
	var out bytes.Buffer
	env := &Env{getenv: func(string) string { return "" }, stdin: tty, stdout: &out, stderr: tty}
	err = Run(context.Background(), []string{"admin", "reset-password", "--username", "lea", "--db", dbPath}, env)
	time.Sleep(100 * time.Millisecond)
	tty.Close()
	if err != nil {
		t.Fatalf("reset-password: %v (stdout %q)", err, out.String())
	}
	shown := <-screen
	if bytes.Contains(shown, []byte(secret)) {
		t.Fatalf("the password was echoed on the terminal:\n%q", shown)
	}
	if !bytes.Contains(shown, []byte("not shown")) {
		t.Fatalf("no prompt on the terminal: %q", shown)
	}
	db, _ = store.Open(context.Background(), dbPath)
	defer db.Close()
	if _, err := db.Authenticate(context.Background(), "lea", secret); err != nil {
		t.Fatalf("the typed password does not log in: %v", err)
	}
}

func TestAdminRolesCLI(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "p.db")
	if code, _, errOut := runCLI(t, "", nil, "admin", "create", "--username", "ada", "--generate", "--db", dbPath); code != 0 {
		t.Fatalf("create owner: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "a long enough password\n", nil, "admin", "create", "--username", "ben", "--role", "viewer", "--db", dbPath); code != 0 {
		t.Fatalf("create viewer: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "admin", "create", "--username", "cy", "--role", "boss", "--generate", "--db", dbPath); code != 2 || !bytes.Contains([]byte(errOut), []byte("owner or viewer")) {
		t.Fatalf("bad role: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "admin", "set-role", "--username", "ada", "--role", "viewer", "--db", dbPath); code != 2 || !bytes.Contains([]byte(errOut), []byte("only owner")) {
		t.Fatalf("demoting the last owner: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "admin", "set-role", "--username", "ben", "--role", "owner", "--db", dbPath); code != 0 {
		t.Fatalf("set-role: %d %s", code, errOut)
	}
	code, out, _ := runCLI(t, "", nil, "admin", "list", "--db", dbPath)
	if code != 0 || !bytes.Contains([]byte(out), []byte("ada\towner")) || !bytes.Contains([]byte(out), []byte("ben\towner")) {
		t.Fatalf("list: %d %q", code, out)
	}
	db, _ := store.Open(context.Background(), dbPath)
	defer db.Close()
	es, _ := db.AuditLog(context.Background(), 0, 0)
	if len(es) != 3 || es[0].Action != "change role" || es[0].Actor != "command line" || es[0].Detail != "ben is now owner" {
		t.Fatalf("audit log %+v", es)
	}
	if code, _, errOut := runCLI(t, "", nil, "admin", "unlock", "--username", "ben", "--db", dbPath); code != 0 {
		t.Fatalf("unlock: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "admin", "unlock", "--username", "nobody", "--db", dbPath); code != 2 || !bytes.Contains([]byte(errOut), []byte("no admin named")) {
		t.Fatalf("unlocking an unknown account: %d %s", code, errOut)
	}
	at, err := db.LoginUnlockedAt(context.Background(), "BEN")
	es, _ = db.AuditLog(context.Background(), 0, 0)
	if err != nil || at.IsZero() || es[0].Action != "login unlock" || es[0].Actor != "command line" {
		t.Fatalf("after unlock: at %v, %v; audit %+v", at, err, es[0])
	}
}
