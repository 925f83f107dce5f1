//go:build !windows

package admin

import "syscall"

// cpuTimes returns the process's and its children's CPU seconds (INFO cpu).
func cpuTimes() (sys, user, childSys, childUser float64) {
	var ru, ruc syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ruc)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Stime), tv(ru.Utime), tv(ruc.Stime), tv(ruc.Utime)
}
