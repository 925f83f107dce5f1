//go:build unix

package bench

import (
	"fmt"
	"syscall"
	"time"
)

// SelfCPU returns the user and system CPU time this process (the load
// generator) has used (getrusage RUSAGE_SELF).
func SelfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return tv(ru.Utime) + tv(ru.Stime), nil
}

// RaiseOpenFiles raises this process's soft RLIMIT_NOFILE to its hard
// limit, so that the load generator and the servers it starts afterwards
// (which inherit it) can each hold need descriptors. Go raises its own
// soft limit at start-up but gives child processes the original one back;
// a limit set here is inherited as set. It fails when the hard limit is
// below need.
func RaiseOpenFiles(need int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	var raiseErr error
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = lim.Max
		if raiseErr = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); raiseErr == nil {
			lim = raised
		}
	}
	if lim.Cur < uint64(need) {
		if raiseErr != nil {
			return fmt.Errorf("this run needs about %d file descriptors per process; the open-files limit is %d and raising it to %d failed: %v",
				need, lim.Cur, lim.Max, raiseErr)
		}
		return fmt.Errorf("this run needs about %d file descriptors per process; the hard open-files limit is %d (raise it: ulimit -Hn %d, as root)",
			need, lim.Max, need)
	}
	return nil
}
