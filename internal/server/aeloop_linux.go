//go:build linux

package server

// The event loop (issue 12; Redis's ae.c): on Linux, one goroutine owns
// an epoll set of the plain-TCP client sockets, reads each ready socket
// once (recvmsg, up to readChunk, with the kernel's receive time), runs
// the round's batches on the engine in arrival order and writes the
// replies with write(2) as the engine delivers them (at most writeChunk
// per event). It replaces Server.loop, the connections' reader and
// writer goroutines and the hand-offs between them; it is the only
// goroutine that touches the engine (DESIGN.md §4.1). The accept loops
// stay goroutines: a plain connection is handed over (adopt) through the
// eventfd, as are the replication layer's work (Server.run) and the
// requests of TLS connections, which keep conn.serve's goroutines
// (crypto/tls needs a blocking net.Conn). A TLS-only server and other
// systems run Server.loop. A busy script serves the other clients from
// inside it (serveWhileBusy); a held (blocked) client's socket is read
// on into its query buffer. With io-threads above 1, I/O workers read
// and write a busy round's sockets (aeIO). DESIGN.md §2 and §4.1.
//
// LOCKKV_AELOOP chooses how (unset: a):
//
//	LOCKKV_AELOOP=a    the loop waits in a blocking epoll_wait on its thread
//	LOCKKV_AELOOP=b    the epoll descriptor is registered with Go's
//	                   netpoller: the loop parks like any goroutine that
//	                   waits for a socket, and calls epoll_wait with
//	                   timeout 0 when it is woken
//	LOCKKV_AELOOP=off  no loop: Server.loop and a reader and a writer
//	                   goroutine per connection (for A/B measurements)
//
// LOCKKV_AELOOP_SPIN=N polls the set N times with timeout 0 before it
// waits; LOCKKV_AELOOP_RAW=1 makes the calls that never block (recvmsg,
// write, epoll_wait with timeout 0) with RawSyscall, skipping the Go
// runtime's syscall entry and exit. bench/BENCHMARKS.md §18 has the
// prototype's measurements.

import (
	"cmp"
	"errors"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
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
	// signals counts the wakes since the loop last read the eventfd:
	// only the first writes it.
	signals atomic.Int32

	conns  []*aeConn // by descriptor
	events []unix.EpollEvent
	more   []*aeConn  // read a full chunk: read again without waiting
	wmore  []*aeConn  // wrote a full chunk: write again without waiting
	ran    []*aeBatch // parsed this round
	dead   []*aeConn  // to close after the outputs went out
	// running are the batches runBatches runs now; one a busy script
	// served (serveWhileBusy) is nil. nested is set inside
	// serveWhileBusy.
	running []*aeBatch
	spare   []*aeBatch
	nested  bool
	// beforeSleep, when set (tests), is called before each wait; work:
	// work is waiting, so the loop only polls.
	beforeSleep func(work bool)
	// timed: slow requests are reported (Config.OnSlowRequest).
	timed bool
	// lim is what a connection's read (fill) reads of the loop and the
	// engine, copied at the start of each round's reads (handleEvents).
	lim aeReadLimits

	// toRead are the connections handleEvents reads this round, in the
	// events' order, each once (aeConn.inRead).
	toRead []*aeConn
	// deferW: Deliver appends to the connection's output and lists it
	// in toWrite, which writeDeferred writes at the end of the round
	// (the I/O workers' share too). Set for the round's commands when
	// there are workers.
	deferW  bool
	toWrite []*aeConn
	// io are the I/O workers (nil: the loop alone).
	io *aeIO
	// nextShrink is when the cron next runs shrinkQueryBuffers (monoNow).
	nextShrink int64
}

// aeIO are the event loop's I/O workers (Redis 6's io-threads): in a
// round with at least fanMin sockets to read, or outputs to write, the
// loop splits them among itself and the workers and waits until all
// are done; the connections' parts (aeConn.fill, aeConn.writeOut) run
// there, the rest on the loop, in the events' order. Nothing else runs
// meanwhile: a worker touches only the connections it was given and
// the round's fixed limits (aeLoop.lim).
//
// As Redis's threads, a worker spins for the next job before it parks,
// and the loop spins until the job is done: a round hands out work twice
// (reads, then writes) and waking a parked goroutine costs more than a
// round's share of it. Unlike Redis's, a worker spins on only while the
// loop is in a round that handed out work (inRound; at most aeSpinRound)
// and parks soon after the loop waits for events (aeSpinIdle), so that
// an idle or lightly loaded node leaves the cores to Raft and to the
// other nodes of a machine.
type aeIO struct {
	workers []*aeWorker
	fanMin  int
	// seq numbers the jobs (a worker does each once), left counts the
	// workers not done with the current one; stop ends them.
	seq     atomic.Uint64
	left    atomic.Int32
	stop    atomic.Bool
	inRound atomic.Bool
	// The job: conns[i] for i = k, k+step, ... is share k's (0: the
	// loop's); reads or writes, results at the same index. Written by
	// the loop before seq moves, read by the workers after.
	step  int
	write bool
	conns []*aeConn
	reads []aeRead
	wrote []aeWrote
	raw   bool
	lim   *aeReadLimits
	// fanReads and fanWrites count the jobs fanned out (tests).
	fanReads, fanWrites int
}

// aeWorker is one I/O worker's parking place.
type aeWorker struct {
	parked atomic.Bool
	wake   chan struct{} // one slot; closed when the loop stops
}

// How long a worker spins for the next job before it parks: while the
// loop is in a round that handed out work, and while it is not.
const (
	aeSpinRound = time.Millisecond
	aeSpinIdle  = 20 * time.Microsecond
)

// maxIdleOut is the largest output buffer a connection keeps once it is
// written (as the engine's FlushOutputs keeps its reply buffer).
const maxIdleOut = 64 * 1024

// aeWrote is the result of a worker's write of one chunk (writeOut).
type aeWrote struct {
	n, chunk int
	err      error
}

// aeReadLimits is what aeConn.fill reads besides the connection itself:
// copied once per round, so that the connection part of a read touches
// nothing shared (the I/O workers run it).
type aeReadLimits struct {
	queryLimit int64 // Config.ClientQueryBufferLimit
	maxBulk    int64 // Config.ProtoMaxBulkLen
	timed      bool  // aeLoop.timed
	raw        bool  // aeLoop.raw
}

// aeRead is the result of a connection's read (aeConn.fill), which the
// loop applies (aeLoop.applyRead), in this order: again, overLimit or
// abort, batch, perr.
type aeRead struct {
	// again: the read filled the buffer; read again without waiting.
	again bool
	// abort: end of file or an error; the connection is dropped.
	abort bool
	// overLimit: past client-query-buffer-limit; nothing was parsed.
	overLimit bool
	// batch: the requests parsed, for l.ran.
	batch *aeBatch
	// perr: a protocol error to answer now (no batch is out), then close.
	perr string
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

	// buf holds what was read and not run: the batches out with the
	// engine point into it, so it is only rewound or compacted when
	// none is (a full buffer is replaced, the batches keep the old one).
	buf        []byte
	start, end int
	parser     resp.Parser
	perr       *resp.ProtocolError
	// outstanding counts the batches the engine has and has not
	// finished, inflight their bytes; free are finished ones for reuse.
	outstanding int
	inflight    int
	free        []*aeBatch
	// held: the client waits for something that may take any time
	// (BLPOP, WAIT, CLIENT PAUSE; engine.Conn.Blocked): its socket is
	// read on meanwhile, as Redis reads a blocked client's input into its
	// query buffer, so its disconnect is seen and its next commands
	// queue behind the blocked one.
	held bool
	// untimed: the client was held while batches were out; they are not
	// reported as slow requests (they waited on purpose), as on the
	// goroutines' path. Cleared when none is out.
	untimed bool
	// skipped: readable while a batch was out and the client not held;
	// read when the last batch finishes. unparsed: parsing stopped after
	// one request before AUTH (the next one's limits depend on it);
	// parsed on when the batch finishes.
	skipped  bool
	unparsed bool
	inMore   bool
	inWMore  bool
	inRead   bool // listed in aeLoop.toRead
	// qpeak is the most the query buffer held (as QueryBuffer's used)
	// since the last shrinkQueryBuffers.
	qpeak int
	// hup: epoll reported EPOLLRDHUP, EPOLLHUP or EPOLLERR. Being
	// edge-triggered it reports it once, maybe with more data queued
	// than one read takes: the socket is read again after every read
	// that returned data (and after the last batch when a read was
	// skipped) until the read that returns the end or the error.
	hup bool
	// arrived is when the kernel received the bytes read last, never
	// earlier than for the read before (Unix ns; SO_TIMESTAMPNS, or the
	// time of the read where the kernel gives none): a round's batches
	// run in this order (DESIGN.md §4.2). readAt is when they were read
	// (timed only).
	arrived int64
	readAt  int64
	// recvmsg's arguments, kept here so that a read allocates nothing.
	msg unix.Msghdr
	iov unix.Iovec
	oob [64]byte
	// slow are the timed batches that finished while part of their
	// replies waited for the socket: reported once it took them.
	slow []slowPending
	// out is the output the socket has not taken: sliced forward as it
	// takes it (no copy), and begun again at ob, the start of its array,
	// once empty.
	out, ob []byte
	closing bool // close once out is written
	closed  bool
	// perrMsg is a protocol error that follows the batches parsed: it
	// is answered after they ran, then the connection closes.
	perrMsg string
}

// aeBatch is one pipeline a connection read: its commands, whose
// arguments point into the connection's buffer.
type aeBatch struct {
	c     *aeConn
	cmds  [][][]byte
	args  [][]byte
	bytes int
	ack   func()
	// arrived is the connection's arrived when the batch was parsed;
	// timed and st as batch's (slow requests).
	arrived int64
	timed   bool
	st      stamps
}

// slowPending is a timed batch whose replies were not all written when
// it finished.
type slowPending struct {
	arrived int64
	st      stamps
	n       int
}

// startAE starts the event loop in place of loop when LOCKKV_AELOOP asks
// for it and the server can run it; false: the ordinary loop runs.
func (s *Server) startAE() bool {
	mode := os.Getenv("LOCKKV_AELOOP")
	switch mode {
	case "off":
		return false
	case "a", "b":
	case "":
		mode = "a"
	default:
		s.log.Warn("LOCKKV_AELOOP: unknown value, the event loop runs as with a", "value", mode)
		mode = "a"
	}
	if s.ln == nil {
		// TLS only: every connection would be a reader goroutine's.
		return false
	}
	l := &aeLoop{s: s, mode: mode[0], raw: os.Getenv("LOCKKV_AELOOP_RAW") == "1"}
	l.timed = s.cfg.SlowRequestThreshold > 0 && s.cfg.OnSlowRequest != nil
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
	threads := s.cfg.Engine.IOThreads
	if v, err := strconv.Atoi(os.Getenv("LOCKKV_AELOOP_THREADS")); err == nil && v > 0 {
		threads = v
	}
	if threads > 1 {
		// Redis uses its threads while at least 2 outputs a thread wait
		// (stopThreadedIOIfNeeded).
		l.io = &aeIO{fanMin: 2 * threads, raw: l.raw, lim: &l.lim}
		if v, err := strconv.Atoi(os.Getenv("LOCKKV_AELOOP_FANOUT")); err == nil && v > 0 {
			l.io.fanMin = v
		}
		for i := 1; i < threads; i++ {
			w := &aeWorker{wake: make(chan struct{}, 1)}
			l.io.workers = append(l.io.workers, w)
			go l.io.work(i, w)
		}
	}
	s.ae = l
	s.onBusy = l.serveWhileBusy
	s.log.Debug("event loop", "mode", mode, "spin", l.spin, "raw", l.raw, "io-threads", max(threads, 1))
	return true
}

// work is worker i's goroutine: share i of each job.
func (io *aeIO) work(i int, w *aeWorker) {
	var done uint64
	for {
		var since int64
		for spins := 1; io.seq.Load() == done; spins++ {
			if io.stop.Load() {
				return
			}
			if spins%64 != 0 {
				continue
			}
			limit := aeSpinIdle
			if io.inRound.Load() {
				limit = aeSpinRound
			}
			if now := monoNow(); since == 0 {
				since = now
			} else if now-since > int64(limit) {
				// Park. The loop moves seq, then looks at parked;
				// this sets parked, then looks at seq: one of the two
				// sees the other (a wake-up token may be left over,
				// which only makes a later park look again).
				w.parked.Store(true)
				if io.seq.Load() == done && !io.stop.Load() {
					<-w.wake
				}
				w.parked.Store(false)
				since = 0
			}
			runtime.Gosched()
		}
		done = io.seq.Load() // the next job: the loop waits for this one
		if i < io.step {
			io.share(i)
		}
		io.left.Add(-1)
	}
}

// share does share k of the job.
func (io *aeIO) share(k int) {
	for j := k; j < len(io.conns); j += io.step {
		c := io.conns[j]
		if io.write {
			io.wrote[j] = c.writeOut(io.raw)
		} else {
			io.reads[j] = aeRead{}
			c.fill(io.lim, &io.reads[j])
		}
	}
}

// fan runs the job in io.conns: the loop's share here, the others' on
// the workers, and returns when all are done. Every worker takes part
// in every job, with a share or none, so none can still be reading the
// job when the loop writes the next.
func (io *aeIO) fan() {
	io.step = min(len(io.workers)+1, len(io.conns))
	if io.write {
		io.fanWrites++
	} else {
		io.fanReads++
	}
	io.left.Store(int32(len(io.workers)))
	io.inRound.Store(true)
	io.seq.Add(1)
	for _, w := range io.workers {
		if w.parked.Load() {
			select {
			case w.wake <- struct{}{}:
			default: // a token is there already
			}
		}
	}
	io.share(0)
	for spins := 1; io.left.Load() != 0; spins++ {
		if spins%64 == 0 {
			runtime.Gosched()
		}
	}
}

// wake makes the loop look at incoming, the applies, the TLS requests
// and quit. Only the first wake since the loop last took the eventfd
// writes it (signals): the loop takes everything handed over before it
// resets signals, which each later wake sees.
func (l *aeLoop) wake() {
	if l.signals.Add(1) > 1 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeEventfd()
}

// signal is wake with mu held.
func (l *aeLoop) signal() {
	if l.signals.Add(1) == 1 {
		l.writeEventfd()
	}
}

// writeEventfd wakes the loop (mu held).
func (l *aeLoop) writeEventfd() {
	if !l.stopped {
		one := uint64(1)
		unix.Write(l.efd, (*[8]byte)(unsafe.Pointer(&one))[:])
	}
}

// dupFD duplicates an accepted socket's descriptor for the loop (a test
// makes it fail as with EMFILE).
var dupFD = func(fd uintptr) (int, error) { return unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }

// adopt takes over a connection the accept loop accepted: the loop gets
// a duplicate of its descriptor, and nc is closed (which removes it from
// Go's netpoller). When the descriptor cannot be duplicated (EMFILE: the
// accept took the last one) adopt returns an errNoDup and leaves nc
// open, for the accept loop to serve it on goroutines as a TLS
// connection is; any other error has closed nc.
func (l *aeLoop) adopt(nc net.Conn) error {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		nc.Close()
		return errors.New("not a TCP connection")
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		nc.Close()
		return err
	}
	fd := -1
	rc.Control(func(s uintptr) {
		fd, err = dupFD(s)
	})
	if err != nil {
		return errNoDup{os.NewSyscallError("fcntl", err)}
	}
	a := aeAccepted{fd: fd, local: nc.LocalAddr().String(), remote: nc.RemoteAddr().String()}
	nc.Close()
	if fd < 0 {
		return nil // closed meanwhile
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		unix.Close(fd)
		return nil
	}
	l.incoming = append(l.incoming, a)
	l.signal()
	return nil
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

// sysRead reads the socket once with recvmsg(2) and returns when the
// kernel received the bytes (SO_TIMESTAMPNS of the last segment read;
// 0 when it gave none).
func (c *aeConn) sysRead(p []byte, raw bool) (n int, at int64, err error) {
	c.iov = unix.Iovec{Base: &p[0]}
	c.iov.SetLen(len(p))
	c.msg = unix.Msghdr{Iov: &c.iov, Control: &c.oob[0]}
	c.msg.SetIovlen(1)
	defer func() { c.iov.Base = nil }()
	for {
		c.msg.SetControllen(len(c.oob))
		var got uintptr
		var errno syscall.Errno
		if raw {
			got, _, errno = unix.RawSyscall(unix.SYS_RECVMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&c.msg)), 0)
		} else {
			got, _, errno = unix.Syscall(unix.SYS_RECVMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&c.msg)), 0)
		}
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return 0, 0, errno
		}
		if int(c.msg.Controllen) >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			h := (*unix.Cmsghdr)(unsafe.Pointer(&c.oob[0]))
			if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS {
				at = (*unix.Timespec)(unsafe.Pointer(&c.oob[unix.CmsgLen(0)])).Nano()
			}
		}
		return int(got), at, nil
	}
}

func sysWrite(fd int, p []byte, raw bool) (int, error) {
	for {
		var n uintptr
		var errno syscall.Errno
		if raw {
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
		hz := s.eng.Config.Hz
		if hz <= 0 {
			hz = 10
		}
		until := nextCron
		if at := s.eng.NextWakeup(); at > 0 {
			until = min(until, monoNow()+int64(time.Duration(at-s.eng.NowMs())*time.Millisecond))
		}
		// Work waiting: the loop polls without waiting. A busy script's
		// round (serveWhileBusy) reads the eventfd, so an apply or a Do
		// that came during the script, or a request it held, has no
		// wake-up left; and the batches of the script's caller it read
		// wait in l.ran when the script ran after runBatches (a client
		// unblocked in FlushOutputs, the cron).
		work := len(l.more) > 0 || len(l.wmore) > 0 || len(s.reqs) > 0 ||
			len(s.applies) > 0 || len(s.held) > 0 || len(l.ran) > 0
		if l.beforeSleep != nil {
			l.beforeSleep(work)
		}
		if l.io != nil && l.io.inRound.Load() {
			l.io.inRound.Store(false)
		}
		s.busySince.Store(0)
		n := l.wait(until, work)
		s.busySince.Store(monoNow())
		// The events first: they are in l.events, which a busy script's
		// round (serveWhileBusy) polls into; handling them only reads
		// and parses.
		l.handleEvents(n)
		l.deferW = l.io != nil
		// Then the replication layer's work (Raft's applies, Do): the
		// clients waiting on committed entries never queue behind new
		// requests, and their replies go out this round.
		s.handleApplies()
		s.handleHeld() // none known outside a request; counted in work
		l.takeRequests()
		s.handleApplies() // what came during a TLS client's busy script
		l.runBatches()
		s.eng.FlushOutputs()
		l.writeDeferred()
		l.closeDead()
		if now := monoNow(); now >= nextCron || (until < nextCron && now >= until) {
			s.eng.Cron()
			s.eng.FlushOutputs()
			l.closeDead()
			if now >= l.nextShrink {
				l.shrinkQueryBuffers()
				l.nextShrink = now + int64(time.Second)
			}
			if now >= nextCron {
				nextCron = now + int64(time.Second/time.Duration(hz))
			}
		}
	}
}

// takeRequests runs what the connection goroutines of TLS clients
// handed over (Server.submit wakes the loop): their batches in arrival
// order, before the batches the loop read itself this round (the two
// are not merged by arrival), and their connects and closes.
func (l *aeLoop) takeRequests() {
	s := l.s
	for round := 0; round < 16 && len(s.reqs) > 0; round++ {
		got := s.gather(s.gathered[:0])
		orderByArrival(got)
		s.prefetch(got)
		for i, r := range got {
			if r.kind == reqTaken {
				got[i] = request{}
				continue
			}
			s.queued = got[i+1:]
			s.handle(r)
			s.handleHeld()
			s.queued = nil
			got[i] = request{}
		}
		s.gathered = got[:0]
	}
}

// handleEvents takes the n events in l.events and the connections to
// read again: new connections join, ready sockets are written and read,
// and what they hold is parsed into l.ran.
func (l *aeLoop) handleEvents(n int) {
	cfg := l.s.eng.Config
	l.lim = aeReadLimits{queryLimit: cfg.ClientQueryBufferLimit, maxBulk: cfg.ProtoMaxBulkLen, timed: l.timed, raw: l.raw}
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
		if ev.Events&(unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
			// Edge-triggered, a FIN that came with the last bytes is
			// reported once: remember it, so that the connection is
			// read until the read that sees it (fill, the last ack).
			c.hup = true
		}
		if ev.Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
			l.listRead(c)
		}
	}
	for i, c := range more {
		c.inMore = false
		if !c.closed {
			l.listRead(c)
		}
		more[i] = nil
	}
	l.readListed()
	wmore := l.wmore
	l.wmore = l.wmore[len(l.wmore):]
	for i, c := range wmore {
		c.inWMore = false
		if !c.closed && len(c.out) > 0 {
			c.flush()
		}
		wmore[i] = nil
	}
}

// serveWhileBusy is the engine's OnBusy on the event loop: a script past
// busy-reply-threshold calls it again and again (Redis's
// processEventsWhileBlocked). It runs a round without waiting: the
// batches read before the script started and not run yet, then what the
// sockets hold now; other clients' commands get -BUSY unless they may run
// (SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE, ...). Batches of the
// script's own client wait in l.running until it returns, in order. Do
// calls wait in s.applies; connections that closed are freed after the
// script.
func (l *aeLoop) serveWhileBusy() {
	if l.nested {
		return
	}
	l.nested = true
	defer func() { l.nested = false }()
	// The replies so far go out now, and the rest of the round's as
	// they come: the script may run for long.
	l.writeDeferred()
	s := l.s
	select {
	case <-s.quit:
		s.eng.AbortScript()
	default:
	}
	caller := s.eng.ScriptCaller()
	for i, b := range l.running {
		if b != nil && b.c.client != caller {
			l.running[i] = nil
			l.process(b)
		}
	}
	l.handleEvents(l.poll(l.epfd))
	slices.SortStableFunc(l.ran, func(a, b *aeBatch) int { return cmp.Compare(a.arrived, b.arrived) })
	// The caller's batches wait: after its batch in l.running, or, when
	// the script runs outside runBatches (a Raft apply, a TLS client's
	// request), in l.ran for this round's runBatches.
	kept := 0
	for i, b := range l.ran {
		l.ran[i] = nil
		switch {
		case b.c.client != caller:
			l.process(b)
		case l.running != nil:
			l.running = append(l.running, b)
		default:
			l.ran[kept] = b
			kept++
		}
	}
	l.ran = l.ran[:kept]
	// The TLS clients' requests (and FlushOutputs).
	s.serveWhileBusy()
}

// accept registers the connections adopted since the loop last looked.
func (l *aeLoop) accept() {
	var buf [8]byte
	unix.Read(l.efd, buf[:])
	// After the read: a wake from now on writes the eventfd again. Its
	// Add is seen by this Swap or comes after it; what it handed over
	// before is taken this round (the applies and requests are drained
	// after the events) or wakes the next.
	l.signals.Swap(0)
	l.mu.Lock()
	in := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, a := range in {
		c := &aeConn{l: l, fd: a.fd, local: a.local, remote: a.remote, buf: make([]byte, readChunk)}
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
		unix.SetsockoptInt(a.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		setKeepAliveFD(a.fd, l.s.eng.Config.TCPKeepalive)
		// Bytes may have arrived before it joined the set.
		l.readAgain(c)
	}
}

// setKeepAliveFD is setKeepAlive for a descriptor.
func setKeepAliveFD(fd, secs int) {
	if secs <= 0 {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 0)
		return
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, secs)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, max(secs/3, 1))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3)
}

func (l *aeLoop) readAgain(c *aeConn) {
	if !c.inMore && !c.closed {
		c.inMore = true
		l.more = append(l.more, c)
	}
}

// listRead lists c for this round's reads (readListed), once.
func (l *aeLoop) listRead(c *aeConn) {
	if !c.inRead {
		c.inRead = true
		l.toRead = append(l.toRead, c)
	}
}

// readListed reads each listed connection's socket once and parses what
// it holds (fill), on the I/O workers when there are enough of them,
// then applies the results (applyRead) in the order they were listed.
func (l *aeLoop) readListed() {
	cs := l.toRead
	if io := l.io; io != nil && len(cs) >= io.fanMin {
		io.write, io.conns = false, cs
		io.reads = slices.Grow(io.reads[:0], len(cs))[:len(cs)]
		io.fan()
		l.s.eng.Stats.IOThreadedReads += int64(len(cs))
		for i, c := range cs {
			c.inRead = false
			l.applyRead(c, &io.reads[i])
			io.reads[i] = aeRead{}
		}
		io.conns = nil
	} else {
		for _, c := range cs {
			c.inRead = false
			var r aeRead
			c.fill(&l.lim, &r)
			l.applyRead(c, &r)
		}
	}
	clear(cs)
	l.toRead = cs[:0]
}

// fill reads the socket once and parses the complete requests into a
// batch. It touches only c (its buffer, parser, batches and msghdr) and
// lim: what the loop must do about it is left in r. While a batch is
// out the socket is read only if the client is held (blocked for any
// time).
func (c *aeConn) fill(lim *aeReadLimits, r *aeRead) {
	if c.client == nil || c.closing {
		return
	}
	if c.outstanding > 0 && !c.held {
		c.skipped = true
		return
	}
	if c.unparsed && c.outstanding == 0 {
		// Before AUTH: the next request already buffered runs first,
		// and the socket is read only when the buffer holds no complete
		// request, so that the buffer does not grow by a read per
		// command. The socket is read after that batch (skipped).
		c.parse(lim, r)
		if r.batch != nil || r.perr != "" {
			c.skipped = true
			return
		}
	}
	if c.start == c.end && c.outstanding == 0 {
		c.start, c.end = 0, 0
	}
	if c.end == len(c.buf) {
		need := c.end - c.start + readChunk
		if want := c.parser.Need(); want > need {
			need = want
		}
		if c.outstanding == 0 && c.start > 0 && need <= len(c.buf) {
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
	n, at, err := c.sysRead(c.buf[c.end:], lim.raw)
	if err == unix.EAGAIN {
		return
	}
	if err != nil || n == 0 {
		r.abort = true
		return
	}
	r.again = n == room || c.hup
	if c.perrMsg != "" {
		// A held client after a protocol error: nothing that follows
		// the error is parsed or run (Redis stops at it); the socket
		// is read only to see a disconnect, and what it returns is
		// dropped (c.end stays). The error goes out, and the
		// connection closes, when the batches out finish.
		return
	}
	c.end += n
	c.qpeak = max(c.qpeak, c.end-c.start+c.inflight)
	if at == 0 {
		at = wallNow()
	}
	c.arrived = max(c.arrived, at)
	if lim.timed {
		c.readAt = wallNow()
	}
	// client-query-buffer-limit: what was read and has not run yet, the
	// partial request and the batches a held client queued, as Redis's
	// query buffer holds them.
	if int64(c.end-c.start+c.inflight) > lim.queryLimit {
		r.overLimit = true
		return
	}
	if !c.authed && c.outstanding > 0 {
		// Before AUTH a request is parsed only once the one before it
		// ran (a held client: its AUTH waits for CLIENT PAUSE), with
		// the limits that one left, as Redis parses nothing of a
		// blocked client's input; the last ack parses it.
		c.unparsed = true
		return
	}
	c.parse(lim, r)
}

// queryBufKeep is the largest query buffer a connection keeps however
// little it uses it (shrinkQueryBuffers).
const queryBufKeep = 64 << 10

// shrinkQueryBuffers is Redis's clientsCronResizeQueryBuffer, once a
// second (the loop's cron): a connection's query buffer, grown for a
// large request, goes back to readChunk when it is empty, no batch is
// out, it is larger than queryBufKeep, and the reads since the last pass
// used less than half of it (qpeak), so that a client that sends large
// requests one after another keeps its buffer and an idle one does not
// keep its largest request's size. An empty output buffer larger than
// readChunk (Redis's reply buffer) is dropped too (as Redis's
// clientsCronResizeOutputBuffer shrinks an idle client's): with I/O
// workers every reply passes through it (deferW), and an idle client
// would keep its largest round's output, up to maxIdleOut.
func (l *aeLoop) shrinkQueryBuffers() {
	for _, c := range l.conns {
		if c == nil || c.closed {
			continue
		}
		if c.start == c.end && c.outstanding == 0 && len(c.buf) > queryBufKeep && c.qpeak < len(c.buf)/2 {
			c.shrink()
		}
		c.qpeak = c.end - c.start + c.inflight
		if len(c.out) == 0 && cap(c.ob) > readChunk {
			c.ob = nil
		}
	}
}

// shrink replaces the empty buffer with a readChunk one. The finished
// batches' arrays are cleared: they pointed into the old buffer and
// would keep it.
func (c *aeConn) shrink() {
	c.buf = make([]byte, readChunk)
	c.start, c.end = 0, 0
	for _, b := range c.free {
		clear(b.args[:cap(b.args)])
		clear(b.cmds[:cap(b.cmds)])
	}
}

// applyRead does on the loop what c's read (fill) left in r.
func (l *aeLoop) applyRead(c *aeConn, r *aeRead) {
	if r.again {
		l.readAgain(c)
	}
	if r.abort {
		c.Abort()
		return
	}
	if r.overLimit {
		from := c.start + c.parser.QueryStart()
		head := append([]byte(nil), c.buf[from:min(c.end, from+64)]...)
		l.s.eng.CloseQueryBufferLimit(c.client, head)
		return
	}
	if r.batch != nil {
		l.ran = append(l.ran, r.batch)
	}
	if r.perr != "" {
		c.protocolError(r.perr)
	}
}

// parse parses the complete requests in the buffer into one batch
// (r.batch); before AUTH only one.
func (c *aeConn) parse(lim *aeReadLimits, r *aeRead) {
	c.unparsed = false
	if c.start == c.end {
		return
	}
	var b *aeBatch
	if n := len(c.free); n > 0 {
		b = c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
	} else {
		b = c.newBatch()
	}
	plim := resp.Limits{Authenticated: c.authed, MaxBulkLen: lim.maxBulk}
	n, err := parseRequests(&c.parser, c.buf[c.start:c.end], &b.args, &b.cmds, plim)
	c.start += n
	b.bytes += n
	perr := false
	if err != nil && errors.As(err, &c.perr) {
		perr = true
		c.start = c.end
	}
	// Before AUTH one command is parsed; the rest waits for its batch.
	c.unparsed = err == nil && !c.authed && c.start < c.end
	if len(b.cmds) > 0 {
		c.outstanding++
		c.inflight += b.bytes
		b.arrived = c.arrived
		if b.timed = lim.timed; b.timed {
			b.st = stamps{read: c.readAt}
		}
		r.batch = b
	} else {
		b.bytes = 0
		c.free = append(c.free, b)
	}
	if perr {
		msg := "ERR " + c.perr.Error()
		c.perr = nil
		if c.outstanding == 0 {
			r.perr = msg
		} else {
			c.perrMsg = msg
		}
	}
}

func (c *aeConn) newBatch() *aeBatch {
	b := &aeBatch{c: c}
	b.ack = func() {
		c.outstanding--
		c.inflight -= b.bytes
		if b.timed && !c.untimed {
			b.st.done = wallNow()
			sp := slowPending{arrived: b.arrived, st: b.st, n: len(b.cmds)}
			if len(c.out) == 0 {
				c.l.s.slowRequest(c.remote, sp.arrived, sp.st, sp.n)
			} else {
				c.slow = append(c.slow, sp)
			}
		}
		b.cmds, b.args, b.bytes = b.cmds[:0], b.args[:0], 0
		c.free = append(c.free, b)
		if c.outstanding > 0 {
			return
		}
		c.held, c.untimed = false, false
		if c.perrMsg != "" {
			// The batches' replies went out (FlushOutputs delivers
			// before it acks): now the error, then close.
			msg := c.perrMsg
			c.perrMsg = ""
			c.protocolError(msg)
			return
		}
		if c.skipped || c.unparsed || c.hup {
			c.skipped = false
			c.l.readAgain(c)
		}
	}
	return b
}

// protocolError answers a malformed request and closes the connection.
func (c *aeConn) protocolError(msg string) {
	var w resp.Writer
	w.Error(msg)
	c.l.s.eng.CountErrorReply(msg)
	c.Deliver(w.B)
	c.Close()
}

// process hands b to the engine.
func (l *aeLoop) process(b *aeBatch) {
	if b.timed {
		b.st.taken = wallNow()
	}
	l.s.eng.ProcessBatch(b.c.client, b.cmds, b.ack)
}

// runBatches runs the batches parsed this round, their keys prefetched
// together as the ordinary loop does.
func (l *aeLoop) runBatches() {
	if len(l.ran) == 0 {
		return
	}
	e := l.s.eng
	if len(l.ran) > 1 {
		// By arrival (DESIGN.md §4.2); a connection's batches keep
		// their order, as their arrived never decreases.
		slices.SortStableFunc(l.ran, func(a, b *aeBatch) int { return cmp.Compare(a.arrived, b.arrived) })
		for _, b := range l.ran {
			e.Prefetch(b.c.client, b.cmds)
		}
		e.PrefetchFlush()
	} else {
		e.PrefetchAlone(l.ran[0].c.client, l.ran[0].cmds)
	}
	s := l.s
	l.running, l.ran = l.ran, l.spare[:0]
	// A busy script may serve the batches after its own and append its
	// client's (serveWhileBusy).
	for i := 0; i < len(l.running); i++ {
		b := l.running[i]
		if b == nil {
			continue
		}
		l.running[i] = nil
		l.process(b)
		s.handleHeld() // a TLS client's requests a busy script held
		// What Raft handed over meanwhile goes first, as in
		// Server.runArrived: after a long request, a node that lost
		// leadership stops serving before it answers the next one.
		s.handleApplies()
	}
	l.spare = l.running[:0]
	l.running = nil
}

// flush writes the output the socket did not take before, up to
// writeChunk (Redis's NET_MAX_WRITES_PER_EVENT), so that one large
// output does not hold the loop: when the socket took the whole chunk,
// the rest goes next round without waiting (writeAgain); when it took
// less, at EPOLLOUT.
func (c *aeConn) flush() {
	c.wrote(c.writeOut(c.l.raw))
}

// writeOut writes the first writeChunk of c's output: flush's part that
// touches only the connection (an I/O worker may run it).
func (c *aeConn) writeOut(raw bool) aeWrote {
	chunk := min(len(c.out), writeChunk)
	n, err := sysWrite(c.fd, c.out[:chunk], raw)
	return aeWrote{n: n, chunk: chunk, err: err}
}

// wrote is flush's part on the loop: it applies what writeOut did.
func (c *aeConn) wrote(w aeWrote) {
	if w.err == unix.EAGAIN {
		return
	}
	if w.err != nil {
		c.Abort()
		return
	}
	c.out = c.out[w.n:] // no copy: appends go after it
	if len(c.out) > 0 {
		if w.n == w.chunk {
			c.l.writeAgain(c)
		}
		return
	}
	c.out = nil
	if cap(c.ob) > maxIdleOut {
		c.ob = nil // a large reply's buffer is not kept
	}
	for i, sp := range c.slow {
		c.l.s.slowRequest(c.remote, sp.arrived, sp.st, sp.n)
		c.slow[i] = slowPending{}
	}
	c.slow = c.slow[:0]
	if c.closing {
		c.l.closeLater(c)
	}
}

// Deliver implements engine.Conn: b goes to the socket now, up to
// writeChunk, or at the end of the round while the loop defers writes
// (deferW); the rest waits for the next round or EPOLLOUT (flush).
func (c *aeConn) Deliver(b []byte) {
	if c.closed || len(b) == 0 {
		return
	}
	if len(c.out) > 0 {
		c.out = append(c.out, b...)
		return
	}
	if c.l.deferW {
		c.out = append(c.ob[:0], b...)
		c.ob = c.out[:0]
		c.l.toWrite = append(c.l.toWrite, c)
		return
	}
	chunk := b[:min(len(b), writeChunk)]
	n, err := sysWrite(c.fd, chunk, c.l.raw)
	if err == unix.EAGAIN {
		n = 0
	} else if err != nil {
		c.Abort()
		return
	}
	if n < len(b) {
		c.out = append(c.ob[:0], b[n:]...)
		c.ob = c.out[:0]
		if n == len(chunk) {
			c.l.writeAgain(c)
		}
	}
}

// writeDeferred ends the round's deferred writes: it writes the
// outputs Deliver listed, up to writeChunk each, on the I/O workers when
// there are enough of them, and applies the results (wrote) in the
// order they were listed.
func (l *aeLoop) writeDeferred() {
	l.deferW = false
	cs := l.toWrite
	// An output emptied or dropped since (Abort) is not written.
	k := 0
	for _, c := range cs {
		if !c.closed && len(c.out) > 0 {
			cs[k] = c
			k++
		}
	}
	clear(cs[k:])
	cs = cs[:k]
	if l.io != nil {
		// As Redis's: active while a round has enough outputs.
		l.s.eng.IOThreadsActive = len(cs) >= l.io.fanMin
	}
	if io := l.io; io != nil && len(cs) >= io.fanMin {
		io.write, io.conns = true, cs
		io.wrote = slices.Grow(io.wrote[:0], len(cs))[:len(cs)]
		io.fan()
		l.s.eng.Stats.IOThreadedWrites += int64(len(cs))
		for i, c := range cs {
			c.wrote(io.wrote[i])
			io.wrote[i] = aeWrote{}
		}
		io.conns = nil
	} else {
		for _, c := range cs {
			c.flush()
		}
	}
	clear(cs)
	l.toWrite = cs[:0]
}

// writeAgain makes the next round write c's output without waiting for
// EPOLLOUT (the socket took all it was given).
func (l *aeLoop) writeAgain(c *aeConn) {
	if !c.inWMore && !c.closed {
		c.inWMore = true
		l.wmore = append(l.wmore, c)
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
			// Nothing reads them again; whatever still points at the
			// connection does not keep them.
			c.buf, c.out, c.ob, c.free, c.slow = nil, nil, nil, nil, nil
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
	if l.io != nil {
		l.io.stop.Store(true)
		for _, w := range l.io.workers {
			close(w.wake)
		}
	}
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
	return int64(c.end - c.start + c.inflight), int64(len(c.buf) - c.end)
}

// Blocked implements engine.Conn: a held client's socket is read on.
func (c *aeConn) Blocked(held bool) {
	c.held = held
	if held {
		c.untimed = true
	}
	if held && c.skipped {
		c.skipped = false
		c.l.readAgain(c)
	}
}

// SetAuthenticated implements engine.Conn.
func (c *aeConn) SetAuthenticated(ok bool) { c.authed = ok }

// RemoteAddr implements engine.Conn.
func (c *aeConn) RemoteAddr() string { return c.remote }

// LocalAddr implements engine.Conn.
func (c *aeConn) LocalAddr() string { return c.local }
