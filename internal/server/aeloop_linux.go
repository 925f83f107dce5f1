//go:build linux

package server

// An experiment for issue 12, not for production: a Redis-style event
// loop (ae.c) that replaces the command goroutine, the connections'
// reader and writer goroutines and the hand-offs between them with one
// goroutine that owns an epoll set of the client sockets, reads each
// ready socket once (up to readChunk), runs what it parsed on the engine
// and writes the replies with write(2) when the engine delivers them.
//
// LOCKKV_AELOOP turns it on for a standalone server with plain TCP only
// (no cluster node, no TLS listener):
//
//	LOCKKV_AELOOP=a   the loop waits in a blocking epoll_wait on its thread
//	LOCKKV_AELOOP=b   the epoll descriptor is registered with Go's
//	                  netpoller: the loop parks like any goroutine that
//	                  waits for a socket, and calls epoll_wait with
//	                  timeout 0 when it is woken
//
// LOCKKV_AELOOP_SPIN=N polls the set N times with timeout 0 before it
// waits; LOCKKV_AELOOP_RAW=1 makes the calls that never block (read,
// write, epoll_wait with timeout 0) with RawSyscall, skipping the Go
// runtime's syscall entry and exit.
//
// What it does not do (the reason it is gated): arrival ordering across
// connections (DESIGN.md §4.2: runs in epoll's order), input of a blocked
// or paused client (its socket is not read until the client's batch
// finishes, so its disconnect goes unseen meanwhile), serving other
// clients while a script is busy (OnBusy: a busy script wedges the
// loop), the replication layer, TLS, tcp-keepalive, slow request
// reports, Redis's one-request-at-a-time parsing before AUTH, and the
// 64 KiB per-event write bound (a partial write keeps the rest for
// EPOLLOUT and never blocks the loop, but output is not written in
// chunks). bench/BENCHMARKS.md §18 has the measurements.

import (
	"errors"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
	"golang.org/x/sys/unix"
)

// aeLoop is the event loop's state; the loop goroutine's alone except
// mu and incoming.
type aeLoop struct {
	s    *Server
	mode byte // 'a' or 'b'
	spin int
	raw  bool

	epfd int
	efd  int // eventfd: new connections, Do calls, Close
	// mode b: the epoll descriptor as a file of Go's netpoller.
	epf      *os.File
	eprc     syscall.RawConn
	deadline time.Time
	waitFn   func(fd uintptr) bool
	waitN    int

	mu       sync.Mutex
	incoming []aeAccepted
	stopped  bool // efd is closed (guarded by mu)

	conns  []*aeConn // by descriptor
	events []unix.EpollEvent
	more   []*aeConn // read a full chunk: read again without waiting
	ran    []*aeConn // parsed a batch this round
	dead   []*aeConn // to close after the outputs went out
}

type aeAccepted struct {
	fd            int
	local, remote string
}

// aeConn is one client connection of the loop; it implements
// engine.Conn, called on the loop goroutine only.
type aeConn struct {
	l             *aeLoop
	fd            int
	local, remote string
	client        *engine.Client
	authed        bool

	buf        []byte
	start, end int
	parser     resp.Parser
	cmds       [][][]byte
	args       [][]byte
	ack        func()
	inflight   bool // the engine has its batch (args point into buf)
	skipped    bool // readable while inflight: read after the ack
	inMore     bool
	out        []byte
	closing    bool // close once out is written
	closed     bool
	// perrMsg is a protocol error that follows the batch parsed: it is
	// answered after the batch ran, then the connection closes.
	perrMsg string
}

// startAE starts the event loop in place of loop when LOCKKV_AELOOP asks
// for it and the server can run it; false: the ordinary loop runs.
func (s *Server) startAE() bool {
	mode := os.Getenv("LOCKKV_AELOOP")
	if mode != "a" && mode != "b" {
		return false
	}
	if s.tlsLn != nil || s.node != nil || s.ln == nil {
		s.log.Warn("LOCKKV_AELOOP ignored: standalone plain TCP only")
		return false
	}
	l := &aeLoop{s: s, mode: mode[0], raw: os.Getenv("LOCKKV_AELOOP_RAW") == "1"}
	l.spin, _ = strconv.Atoi(os.Getenv("LOCKKV_AELOOP_SPIN"))
	var err error
	if l.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		s.log.Warn("LOCKKV_AELOOP ignored", "err", err)
		return false
	}
	if l.efd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		unix.Close(l.epfd)
		s.log.Warn("LOCKKV_AELOOP ignored", "err", err)
		return false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(l.efd)}
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, l.efd, &ev)
	l.events = make([]unix.EpollEvent, 256)
	if l.mode == 'b' {
		unix.SetNonblock(l.epfd, true)
		l.epf = os.NewFile(uintptr(l.epfd), "aeloop-epoll")
		if l.eprc, err = l.epf.SyscallConn(); err != nil {
			s.log.Warn("LOCKKV_AELOOP ignored", "err", err)
			return false
		}
		l.waitFn = func(fd uintptr) bool {
			l.waitN = l.poll(int(fd))
			return l.waitN != 0
		}
	}
	s.ae = l
	s.log.Warn("LOCKKV_AELOOP: experimental event loop", "mode", mode, "spin", l.spin, "raw", l.raw)
	return true
}

// wake makes the loop look at incoming, the applies and quit.
func (l *aeLoop) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.signal()
}

// signal is wake with mu held.
func (l *aeLoop) signal() {
	if !l.stopped {
		one := uint64(1)
		unix.Write(l.efd, (*[8]byte)(unsafe.Pointer(&one))[:])
	}
}

// adopt takes over a connection the accept loop accepted: the loop gets
// a duplicate of its descriptor, and nc is closed (which removes it from
// Go's netpoller).
func (l *aeLoop) adopt(nc net.Conn) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		nc.Close()
		return
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		nc.Close()
		return
	}
	fd := -1
	rc.Control(func(s uintptr) {
		fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	})
	a := aeAccepted{fd: fd, local: nc.LocalAddr().String(), remote: nc.RemoteAddr().String()}
	nc.Close()
	if err != nil || fd < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		unix.Close(fd)
		return
	}
	l.incoming = append(l.incoming, a)
	l.signal()
}

// poll is epoll_wait with timeout 0; the number of events, 0 when none.
func (l *aeLoop) poll(epfd int) int {
	p := unsafe.Pointer(&l.events[0])
	var n uintptr
	var errno syscall.Errno
	if l.raw {
		n, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(epfd), uintptr(p), uintptr(len(l.events)), 0, 0, 0)
	} else {
		n, _, errno = unix.Syscall6(unix.SYS_EPOLL_WAIT, uintptr(epfd), uintptr(p), uintptr(len(l.events)), 0, 0, 0)
	}
	if errno != 0 {
		return 0
	}
	return int(n)
}

// wait returns the number of events ready, waiting up to until (monoNow)
// unless now is set.
func (l *aeLoop) wait(until int64, now bool) int {
	if n := l.poll(l.epfd); n > 0 || now {
		return n
	}
	for i := 0; i < l.spin; i++ {
		if n := l.poll(l.epfd); n > 0 {
			return n
		}
	}
	d := time.Duration(until - monoNow())
	if d <= 0 {
		return 0
	}
	if l.mode == 'a' {
		ms := int((d + time.Millisecond - 1) / time.Millisecond)
		n, err := unix.EpollWait(l.epfd, l.events, ms)
		if err != nil {
			return 0
		}
		return n
	}
	// Mode b: park until Go's netpoller finds the epoll descriptor
	// readable (it has events) or the deadline passes. The deadline only
	// changes when the wake-up time does.
	dl := procStart.Add(time.Duration(until))
	if !dl.Equal(l.deadline) {
		l.deadline = dl
		l.epf.SetReadDeadline(dl)
	}
	l.waitN = 0
	if err := l.eprc.Read(l.waitFn); err != nil {
		return 0
	}
	return l.waitN
}

func (l *aeLoop) sysRead(fd int, p []byte) (int, error) {
	for {
		var n uintptr
		var errno syscall.Errno
		if l.raw {
			n, _, errno = unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		} else {
			n, _, errno = unix.Syscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return 0, errno
		}
		return int(n), nil
	}
}

func (l *aeLoop) sysWrite(fd int, p []byte) (int, error) {
	for {
		var n uintptr
		var errno syscall.Errno
		if l.raw {
			n, _, errno = unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		} else {
			n, _, errno = unix.Syscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return 0, errno
		}
		return int(n), nil
	}
}

// run is the event loop: it alone touches the engine.
func (l *aeLoop) run() {
	s := l.s
	defer s.loopWG.Done()
	defer l.shut()
	nextCron := monoNow()
	for {
		select {
		case <-s.quit:
			return
		default:
		}
		for len(s.applies) > 0 {
			s.handle(<-s.applies)
		}
		hz := s.eng.Config.Hz
		if hz <= 0 {
			hz = 10
		}
		until := nextCron
		if at := s.eng.NextWakeup(); at > 0 {
			until = min(until, monoNow()+int64(time.Duration(at-s.eng.NowMs())*time.Millisecond))
		}
		n := l.wait(until, len(l.more) > 0)
		more := l.more
		l.more = l.more[len(l.more):]
		for _, ev := range l.events[:n] {
			fd := int(ev.Fd)
			if fd == l.efd {
				l.accept()
				continue
			}
			if fd >= len(l.conns) || l.conns[fd] == nil {
				continue
			}
			c := l.conns[fd]
			if ev.Events&unix.EPOLLOUT != 0 && len(c.out) > 0 {
				c.flush()
			}
			if ev.Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
				c.read()
			}
			if ev.Events&(unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
				// Edge-triggered, a FIN that came with the last bytes is
				// reported once: read until the read that sees it.
				l.readAgain(c)
			}
		}
		for i, c := range more {
			c.inMore = false
			if !c.closed {
				c.read()
			}
			more[i] = nil
		}
		l.runBatches()
		s.eng.FlushOutputs()
		l.closeDead()
		if now := monoNow(); now >= nextCron || (until < nextCron && now >= until) {
			s.eng.Cron()
			s.eng.FlushOutputs()
			l.closeDead()
			if now >= nextCron {
				nextCron = now + int64(time.Second/time.Duration(hz))
			}
		}
	}
}

// accept registers the connections adopted since the loop last looked.
func (l *aeLoop) accept() {
	var buf [8]byte
	unix.Read(l.efd, buf[:])
	l.mu.Lock()
	in := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, a := range in {
		c := &aeConn{l: l, fd: a.fd, local: a.local, remote: a.remote, buf: make([]byte, readChunk)}
		c.ack = func() {
			c.inflight = false
			if c.perrMsg != "" {
				// The batch's replies went out (FlushOutputs delivers
				// before it acks): now the error, then close.
				msg := c.perrMsg
				c.perrMsg = ""
				c.protocolError(msg)
				return
			}
			if c.skipped {
				c.skipped = false
				l.readAgain(c)
			}
		}
		for a.fd >= len(l.conns) {
			l.conns = append(l.conns, nil)
		}
		l.conns[a.fd] = c
		c.client = l.s.eng.Accept(c)
		if c.closed {
			continue
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(a.fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, a.fd, &ev); err != nil {
			c.Abort()
			continue
		}
		if c.client == nil {
			continue // turned away: the message goes out, then it closes
		}
		// Bytes may have arrived before it joined the set.
		l.readAgain(c)
	}
}

func (l *aeLoop) readAgain(c *aeConn) {
	if !c.inMore && !c.closed {
		c.inMore = true
		l.more = append(l.more, c)
	}
}

// read reads the socket once and parses the complete requests into the
// connection's batch.
func (c *aeConn) read() {
	if c.client == nil || c.closing {
		return
	}
	if c.inflight {
		c.skipped = true
		return
	}
	s := c.l.s
	if c.start == c.end {
		c.start, c.end = 0, 0
	}
	if c.end == len(c.buf) {
		need := c.end - c.start + readChunk
		if want := c.parser.Need(); want > need {
			need = want
		}
		if c.start > 0 && need <= len(c.buf) {
			copy(c.buf, c.buf[c.start:c.end])
		} else {
			nb := make([]byte, max(need, 2*len(c.buf)-c.start))
			copy(nb, c.buf[c.start:c.end])
			c.buf = nb
		}
		c.end -= c.start
		c.start = 0
	}
	room := len(c.buf) - c.end
	n, err := c.l.sysRead(c.fd, c.buf[c.end:])
	if err == unix.EAGAIN {
		return
	}
	if err != nil || n == 0 {
		c.Abort()
		return
	}
	c.end += n
	if n == room {
		c.l.readAgain(c)
	}
	if int64(c.end-c.start) > s.eng.Config.ClientQueryBufferLimit {
		from := c.start + c.parser.QueryStart()
		head := append([]byte(nil), c.buf[from:min(c.end, from+64)]...)
		s.eng.CloseQueryBufferLimit(c.client, head)
		return
	}
	lim := resp.Limits{Authenticated: c.authed, MaxBulkLen: s.eng.Config.ProtoMaxBulkLen}
	c.cmds, c.args = c.cmds[:0], c.args[:0]
	var perr *resp.ProtocolError
	for c.start < c.end {
		if cap(c.args)-len(c.args) < 8 {
			c.args = make([][]byte, 0, 2*cap(c.args)+64)
		}
		argv := c.args[len(c.args):cap(c.args)]
		args, n, err := c.parser.Parse(c.buf[c.start:c.end], argv, lim)
		if err != nil {
			if errors.As(err, &perr) {
				c.start = c.end
			}
			break
		}
		c.start += n
		if args == nil {
			continue
		}
		if len(args) > 0 && &args[0] == &argv[:1][0] {
			c.args = c.args[:len(c.args)+len(args)]
		}
		c.cmds = append(c.cmds, args)
	}
	if len(c.cmds) > 0 {
		c.inflight = true
		c.l.ran = append(c.l.ran, c)
	}
	if perr != nil {
		msg := "ERR " + perr.Error()
		if len(c.cmds) == 0 {
			c.protocolError(msg)
		} else {
			c.perrMsg = msg
		}
	}
}

// protocolError answers a malformed request and closes the connection.
func (c *aeConn) protocolError(msg string) {
	var w resp.Writer
	w.Error(msg)
	c.l.s.eng.CountErrorReply(msg)
	c.Deliver(w.B)
	c.Close()
}

// runBatches runs the batches parsed this round, their keys prefetched
// together as the ordinary loop does.
func (l *aeLoop) runBatches() {
	if len(l.ran) == 0 {
		return
	}
	e := l.s.eng
	if len(l.ran) > 1 {
		for _, c := range l.ran {
			e.Prefetch(c.client, c.cmds)
		}
		e.PrefetchFlush()
	} else {
		e.Prefetch(l.ran[0].client, l.ran[0].cmds)
	}
	for i, c := range l.ran {
		e.ProcessBatch(c.client, c.cmds, c.ack)
		l.ran[i] = nil
	}
	l.ran = l.ran[:0]
}

// flush writes the output the socket did not take before.
func (c *aeConn) flush() {
	n, err := c.l.sysWrite(c.fd, c.out)
	if err == unix.EAGAIN {
		return
	}
	if err != nil {
		c.Abort()
		return
	}
	if n == len(c.out) {
		c.out = c.out[:0]
		if c.closing {
			c.l.closeLater(c)
		}
		return
	}
	c.out = append(c.out[:0], c.out[n:]...)
}

// Deliver implements engine.Conn: b goes to the socket now, what it does
// not take waits for EPOLLOUT.
func (c *aeConn) Deliver(b []byte) {
	if c.closed || len(b) == 0 {
		return
	}
	if len(c.out) > 0 {
		c.out = append(c.out, b...)
		return
	}
	n, err := c.l.sysWrite(c.fd, b)
	if err == unix.EAGAIN {
		n = 0
	} else if err != nil {
		c.Abort()
		return
	}
	if n < len(b) {
		c.out = append(c.out, b[n:]...)
	}
}

// Close implements engine.Conn.
func (c *aeConn) Close() {
	c.closing = true
	if len(c.out) == 0 {
		c.l.closeLater(c)
	}
}

// Abort implements engine.Conn.
func (c *aeConn) Abort() {
	c.out = nil
	c.closing = true
	c.l.closeLater(c)
}

func (l *aeLoop) closeLater(c *aeConn) {
	if !c.closed {
		c.closed = true
		l.dead = append(l.dead, c)
	}
}

// closeDead closes the connections that closed this round and frees
// their clients.
func (l *aeLoop) closeDead() {
	for len(l.dead) > 0 {
		dead := l.dead
		l.dead = nil
		for _, c := range dead {
			unix.Close(c.fd)
			l.conns[c.fd] = nil
			if c.client != nil {
				l.s.eng.FreeClient(c.client)
			}
		}
		l.s.eng.FlushOutputs()
	}
}

// shut closes every connection and the loop's descriptors (the loop is
// stopping).
func (l *aeLoop) shut() {
	for _, c := range l.conns {
		if c != nil && !c.closed {
			l.closeLater(c)
		}
	}
	l.closeDead()
	l.mu.Lock()
	l.stopped = true
	for _, a := range l.incoming {
		unix.Close(a.fd)
	}
	l.incoming = nil
	l.mu.Unlock()
	if l.epf != nil {
		l.epf.Close()
	} else {
		unix.Close(l.epfd)
	}
	unix.Close(l.efd)
}

// Pending implements engine.Conn.
func (c *aeConn) Pending() int64 { return int64(len(c.out)) }

// QueryBuffer implements engine.Conn.
func (c *aeConn) QueryBuffer() (used, free int64) {
	return int64(c.end - c.start), int64(len(c.buf) - c.end)
}

// Blocked implements engine.Conn: nothing to do, the socket is not read
// while the client's batch is out.
func (c *aeConn) Blocked(held bool) {}

// SetAuthenticated implements engine.Conn.
func (c *aeConn) SetAuthenticated(ok bool) { c.authed = ok }

// RemoteAddr implements engine.Conn.
func (c *aeConn) RemoteAddr() string { return c.remote }

// LocalAddr implements engine.Conn.
func (c *aeConn) LocalAddr() string { return c.local }
