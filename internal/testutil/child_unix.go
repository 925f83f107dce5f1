//go:build unix && !linux

package testutil

import "syscall"

// ChildProcAttr is the SysProcAttr of a server a test or benchmark
// starts. Only Linux has Pdeathsig: elsewhere the child outlives a caller
// killed by SIGKILL, and is stopped only by the caller's own cleanup.
// With ownGroup it is in a process group of its own, as on Linux.
func ChildProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: ownGroup}
}
