package testutil

import "syscall"

// ChildProcAttr is the SysProcAttr of a server a test or benchmark
// starts (redis-server, etcd, lockkv nodes): on Linux the child is killed
// when the process that started it dies (Pdeathsig), even by SIGKILL, so
// no server outlives an interrupted run. With ownGroup it is also in a
// process group of its own, out of reach of a terminal's or job
// control's signals to the caller's group.
func ChildProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: ownGroup}
}
