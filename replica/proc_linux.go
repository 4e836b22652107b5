package replica

import "syscall"

// childAttr puts Litestream in its own process group: a Ctrl-C in the
// terminal reaches pragmalab, which stops Litestream after the last writes
// are committed. If pragmalab dies without stopping it (kill -9, a crash),
// Litestream is killed too: the next start runs a new one, and two must
// never replicate the same file.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
