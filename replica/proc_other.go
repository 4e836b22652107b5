//go:build !linux

package replica

import "syscall"

// childAttr puts Litestream in its own process group (proc_linux.go also
// has it killed with pragmalab; other systems have no such option).
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
