//go:build linux

package server

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// arrivalReader reads a TCP connection with recvmsg and SO_TIMESTAMPNS:
// with the bytes comes the time the kernel received them (of the last
// segment read), which orders requests of different connections by
// arrival however the Go scheduler happens to wake their readers.
//
// It also tells the command loop what its reader holds (see
// Server.awaitEarlier): a pass begins before each recvmsg and ends when
// the reader has handed over what it read (handed) or found nothing that
// makes a request (done); in between the reader holds bytes the loop has
// not seen.
type arrivalReader struct {
	a    *arrivals
	c    *conn
	rc   syscall.RawConn
	fn   func(fd uintptr) bool
	in   bool   // in a pass
	pass uint64 // the pass's number (conn.enters)
	buf  []byte
	oob  [64]byte
	n    int
	at   int64
	err  error
	// msg and iov are recvmsg's arguments, kept here rather than on
	// the stack: unix.Recvmsg's escape to the heap, about 130 bytes of
	// garbage per read, a third of all a server allocates under a load
	// of small scripts (and so of its GC cycles and their assists).
	msg unix.Msghdr
	iov unix.Iovec
}

// newArrivalReader returns a reader for c's connection, registered with
// the loop's view of pending input, or nil when it is not a TCP
// connection or the kernel does not timestamp it.
func newArrivalReader(c *conn) *arrivalReader {
	tc, ok := c.nc.(*net.TCPConn)
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
	r := &arrivalReader{a: &c.s.arrival, c: c, rc: rc}
	r.fn = r.recv
	r.a.register(r)
	return r
}

func (r *arrivalReader) recv(fd uintptr) bool {
	if !r.in {
		// Counted before the bytes leave the socket: the loop looks at
		// the sockets first, then at this count (awaitEarlier).
		r.in = true
		r.pass = r.c.enters.Add(1)
		r.a.enter.Add(1)
	}
	for {
		n, oobn, err := r.recvmsg(fd)
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			r.done() // nothing held while it waits
			return false
		}
		r.n, r.at, r.err = n, 0, nil
		if err != nil {
			r.n, r.err = 0, err
		} else if n == 0 && len(r.buf) > 0 {
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

// recvmsg is one recvmsg(2) into r.buf, the control data into r.oob; it
// allocates nothing.
func (r *arrivalReader) recvmsg(fd uintptr) (n, oobn int, err error) {
	r.iov = unix.Iovec{}
	if len(r.buf) > 0 {
		r.iov.Base = &r.buf[0]
		r.iov.SetLen(len(r.buf))
	}
	r.msg = unix.Msghdr{Iov: &r.iov, Control: &r.oob[0]}
	r.msg.SetIovlen(1)
	r.msg.SetControllen(len(r.oob))
	got, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&r.msg)), 0)
	r.iov.Base = nil
	if errno != 0 {
		return 0, 0, errno
	}
	return int(got), int(r.msg.Controllen), nil
}

// Read reads into p and returns when the kernel received the bytes (Unix
// nanoseconds). The reader holds them until handed or done.
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

// handing is called before the reader hands over a batch: if the loop
// waits with its queue half full, it takes requests from it meanwhile.
func (r *arrivalReader) handing() {
	if r.a.waiting.Load() && len(r.c.s.reqs) >= cap(r.c.s.reqs)/2 {
		r.a.poke()
	}
}

// handed ends the pass with a batch handed over: the reader reads no more
// until the engine is done with it (or the client blocks).
func (r *arrivalReader) handed() { r.end(true) }

// done ends the pass with nothing that makes a request (a partial request
// is not an arrival yet).
func (r *arrivalReader) done() { r.end(false) }

func (r *arrivalReader) end(handed bool) {
	if !r.in {
		return
	}
	r.in = false
	a, c := r.a, r.c
	a.exit.Add(1)
	// The loop waits for a pass begun after it looked (waitFor), or for
	// the reader to hand over and wait for the engine.
	if w := c.waitFor.Load(); w != 0 && (handed || r.pass >= w) && c.waitFor.CompareAndSwap(w, 0) {
		a.left.Add(-1)
	}
	a.check()
}

// close unregisters the connection; its reader has stopped.
func (r *arrivalReader) close() {
	r.done()
	a, c := r.a, r.c
	a.mu.Lock()
	delete(a.byID, c.id)
	a.mu.Unlock()
	if fd := a.epfd.Load() - 1; fd >= 0 {
		// Through Control, which fails once the descriptor is closed (the
		// kernel then dropped it from the set already), so a number
		// reused by another connection is never touched.
		r.rc.Control(func(s uintptr) { unix.EpollCtl(int(fd), unix.EPOLL_CTL_DEL, int(s), nil) })
	}
	if c.waitFor.Swap(0) != 0 {
		a.left.Add(-1)
	}
	a.check()
}

// arrivals is the command loop's view of input its readers have not
// handed over: an epoll set of the connections' sockets shows which
// received bytes since the loop last looked (edge-triggered: a socket
// whose bytes the loop already saw, and chose not to wait for, is not
// reported again and again, which made every look cost as many polls as
// sockets with unread bytes), and enter and exit count the readers'
// passes (arrivalReader) begun and ended.
type arrivals struct {
	once   sync.Once
	epfd   atomic.Int32 // the epoll descriptor + 1; 0 when there is none
	mu     sync.Mutex
	byID   map[uint64]*conn // guarded by mu
	nextID atomic.Uint64

	// Every reader updates these: each on a cache line of its own.
	_     [64]byte
	enter atomic.Uint64
	_     [56]byte
	exit  atomic.Uint64
	_     [56]byte
	// While the loop waits (waiting), it waits for exit to reach target
	// and for left, the connections it waits for (conn.waitFor), to fall
	// to 0; the reader that completes that pokes it (nudge).
	waiting atomic.Bool
	target  atomic.Uint64
	left    atomic.Int64
	nudge   chan struct{}

	// The loop's own.
	events []unix.EpollEvent
	wait   []awaited
	timer  *time.Timer
}

// awaited is a connection the loop waits for, with the waitFor it set.
type awaited struct {
	c *conn
	w uint64
}

// awaitLimit bounds how long the loop waits for readers. A connection
// whose reader does not take its input within it (one blocked writing to
// a client that does not read) is not waited for again until its reader
// begins another pass, nor for slowBackoff: a client that makes its
// reader block on purpose holds the loop up for awaitLimit at most once
// per slowBackoff.
var awaitLimit = time.Millisecond // a variable for tests

const slowBackoff = time.Second

func (a *arrivals) register(r *arrivalReader) {
	a.once.Do(func() {
		a.byID = make(map[uint64]*conn)
		a.nudge = make(chan struct{}, 1)
		if fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC); err == nil {
			a.epfd.Store(int32(fd) + 1)
		}
	})
	fd := a.epfd.Load() - 1
	if fd < 0 {
		return
	}
	c := r.c
	c.id = a.nextID.Add(1)
	a.mu.Lock()
	a.byID[c.id] = c
	a.mu.Unlock()
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(c.id), Pad: int32(c.id >> 32)}
	r.rc.Control(func(s uintptr) { unix.EpollCtl(int(fd), unix.EPOLL_CTL_ADD, int(s), &ev) })
}

func (a *arrivals) settled(e uint64) bool {
	return a.left.Load() <= 0 && a.exit.Load() >= e
}

// check pokes the loop if it waits and the wait is over.
func (a *arrivals) check() {
	if a.waiting.Load() && a.settled(a.target.Load()) {
		a.poke()
	}
}

func (a *arrivals) poke() {
	select {
	case a.nudge <- struct{}{}:
	default:
	}
}

// shut closes the epoll set; every reader has stopped.
func (a *arrivals) shut() {
	if fd := a.epfd.Swap(0) - 1; fd >= 0 {
		unix.Close(int(fd))
	}
}

// awaitEarlier is called by the loop before it runs the requests in got:
// it waits (up to awaitLimit) until the readers that hold input, or whose
// sockets have unread bytes, have handed it over, and adds what they
// handed over to got. Redis's event loop takes in every readable socket
// before it runs anything; so, with the batches then sorted by arrival, a
// request that reached the kernel before another connection's runs first
// even when its reader was not scheduled in time.
//
// It costs one epoll_wait when no other reader holds input; while it
// waits, only the reader that completes the wait wakes the loop. A reader
// that waits for the engine (await: its last batch has not finished, or
// the client is blocked) is not waited for: it reads again only after.
func (s *Server) awaitEarlier(got []request) []request {
	a := &s.arrival
	fd := a.epfd.Load() - 1
	if fd < 0 {
		return got
	}
	if a.events == nil {
		a.events = make([]unix.EpollEvent, 128)
	}
	n, err := unix.EpollWait(int(fd), a.events, 0)
	if err != nil {
		n = 0
	}
	// After the sockets: a reader that took bytes out before epoll_wait
	// looked began its pass before it did.
	e := a.enter.Load()
	if n == 0 && a.exit.Load() >= e {
		// Those passes ended: what they handed over since the loop took
		// got is in s.reqs.
		return s.gather(got)
	}
	a.wait = a.wait[:0]
	if n > 0 {
		var now int64
		a.mu.Lock()
		for _, ev := range a.events[:n] {
			c := a.byID[uint64(uint32(ev.Fd))|uint64(uint32(ev.Pad))<<32]
			if c == nil || c.await.Load() > 0 || c.slowAt == c.enters.Load()+1 {
				continue
			}
			if c.slowUntil != 0 {
				if now == 0 {
					now = monoNow()
				}
				if now < c.slowUntil {
					continue
				}
			}
			w := c.enters.Load() + 1
			a.left.Add(1)
			c.waitFor.Store(w)
			a.wait = append(a.wait, awaited{c, w})
		}
		a.mu.Unlock()
	}
	if !a.settled(e) {
		a.target.Store(e)
		a.waiting.Store(true)
		if a.timer == nil {
			a.timer = time.NewTimer(awaitLimit)
		} else {
			a.timer.Reset(awaitLimit)
		}
	wait:
		for !a.settled(e) {
			// Requests are taken meanwhile only when the queue fills, so
			// that handing one over does not wake the loop.
			var reqs chan request
			if len(s.reqs) >= cap(s.reqs)/2 {
				if len(got) == cap(got) {
					break
				}
				reqs = s.reqs
			}
			select {
			case r := <-reqs:
				got = append(got, r)
			case <-a.nudge:
			case <-a.timer.C:
				until := monoNow() + int64(slowBackoff)
				for _, w := range a.wait {
					if w.c.waitFor.Load() == w.w {
						w.c.slowAt = w.c.enters.Load() + 1
						w.c.slowUntil = until
					}
				}
				break wait
			}
		}
		a.timer.Stop()
		a.waiting.Store(false)
	}
	for _, w := range a.wait {
		if w.c.waitFor.CompareAndSwap(w.w, 0) {
			a.left.Add(-1)
		}
		w.c = nil
	}
	a.wait = a.wait[:0]
	return s.gather(got)
}
