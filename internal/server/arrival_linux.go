//go:build linux

package server

import (
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// arrivalReader reads a TCP connection with recvmsg and SO_TIMESTAMPNS:
// with the bytes comes the time the kernel received them (of the last
// segment read), which orders requests of different connections by
// arrival however the Go scheduler happens to wake their readers.
type arrivalReader struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	buf []byte
	oob [64]byte
	n   int
	at  int64
	err error
}

// newArrivalReader returns a reader for nc, or nil when nc is not a TCP
// connection or the kernel does not timestamp it.
func newArrivalReader(nc net.Conn) *arrivalReader {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return nil
	}
	r := &arrivalReader{rc: rc}
	r.fn = r.recv
	return r
}

func (r *arrivalReader) recv(fd uintptr) bool {
	for {
		n, oobn, _, _, err := unix.Recvmsg(int(fd), r.buf, r.oob[:], 0)
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false // wait until readable
		}
		r.n, r.err, r.at = n, err, 0
		if err == nil && n == 0 && len(r.buf) > 0 {
			r.err = io.EOF
		}
		if oobn >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			h := (*unix.Cmsghdr)(unsafe.Pointer(&r.oob[0]))
			if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS {
				ts := (*unix.Timespec)(unsafe.Pointer(&r.oob[unix.CmsgLen(0)]))
				r.at = ts.Nano()
			}
		}
		if r.at == 0 {
			r.at = time.Now().UnixNano()
		}
		return true
	}
}

// Read reads into p and returns when the kernel received the bytes (Unix
// nanoseconds).
func (r *arrivalReader) Read(p []byte) (int, int64, error) {
	r.buf = p
	err := r.rc.Read(r.fn)
	r.buf = nil
	if err != nil {
		return 0, 0, err
	}
	if r.n < 0 {
		r.n = 0
	}
	return r.n, r.at, r.err
}
