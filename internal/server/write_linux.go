//go:build linux

package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawWriter writes to a TCP connection without ever waiting for room in
// its socket (conn.writeNow). Its fields are the one write in progress
// (the caller holds conn.wmu), so that a write allocates nothing.
type rawWriter struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	p   []byte
	n   int
	err error
}

// newRawWriter returns a writer for nc, or nil when nc is not a TCP
// connection.
func newRawWriter(nc net.Conn) *rawWriter {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &rawWriter{rc: rc}
	w.fn = w.write
	return w
}

func (w *rawWriter) write(fd uintptr) bool {
	for {
		w.n, w.err = unix.Write(int(fd), w.p)
		if w.err != unix.EINTR {
			return true // done either way: never wait for room here
		}
	}
}

// writeOnce writes what the socket takes of p now: n is 0 and err
// unix.EAGAIN when it takes nothing.
func (w *rawWriter) writeOnce(p []byte) (n int, err error) {
	w.p = p
	cerr := w.rc.Write(w.fn)
	w.p = nil
	n, err = max(w.n, 0), w.err
	w.n, w.err = 0, nil
	if cerr != nil {
		return 0, cerr
	}
	return n, err
}

const isLinux = true
