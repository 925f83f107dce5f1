//go:build linux

package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawWriter returns nc's descriptor for writes that never wait
// (writeNow), or nil when nc is not a TCP connection.
func rawWriter(nc net.Conn) syscall.RawConn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// writeOnce writes what the socket takes of p now, without waiting for
// room: n is 0 and err unix.EAGAIN when it takes nothing.
func writeOnce(rc syscall.RawConn, p []byte) (n int, err error) {
	cerr := rc.Write(func(fd uintptr) bool {
		for {
			n, err = unix.Write(int(fd), p)
			if err != unix.EINTR {
				return true // done either way: never wait for room here
			}
		}
	})
	if cerr != nil {
		return 0, cerr
	}
	if n < 0 {
		n = 0
	}
	return n, err
}
