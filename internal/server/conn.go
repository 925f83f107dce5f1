package server

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
)

// conn is one client connection. Its reader goroutine parses requests and
// hands each pipeline to the command goroutine as one batch; its writer
// goroutine writes whatever the command goroutine delivers, so replies,
// pub/sub messages and invalidations leave in the order they were made.
type conn struct {
	s  *Server
	nc net.Conn
	// rw writes to nc without waiting (writeNow); nil where the writer
	// goroutine writes everything (TLS, other systems).
	rw     *rawWriter
	client *engine.Client
	ready  chan struct{}
	// keepalive is tcp-keepalive when the client connected (seconds, 0:
	// off); the reader applies it. Set before ready is closed.
	keepalive int
	// authed mirrors the client's authentication state for the reader,
	// which applies Redis's tighter request limits before AUTH.
	authed atomic.Bool

	// acks returns finished batches to the reader for reuse; when it is
	// full (a blocked client's reader may have more batches out than it
	// holds) they wait in overflow, so the engine never waits on it.
	acks     chan *batch
	overflow []*batch // guarded by mu
	// stop is closed when the server closes the connection: the reader
	// stops waiting for batches.
	stop     chan struct{}
	stopOnce sync.Once
	// parser keeps its place in a request that has not fully arrived.
	parser resp.Parser

	// pending counts the output bytes delivered and not yet written to
	// the socket (out, and what a write in progress has not finished):
	// the engine enforces client-output-buffer-limit on it. qbuf and
	// qfree are the reader's query buffer (bytes read and not yet run,
	// and room left) for CLIENT LIST.
	pending atomic.Int64
	qbuf    atomic.Int64
	qfree   atomic.Int64
	// held is set with a blocked signal when the client waits for
	// something that may take any time (see engine.Conn.Blocked).
	held atomic.Bool
	// For the loop's ordering across connections (awaitEarlier): await
	// counts the batches handed over and not finished (the reader reads
	// again after them, unless the client is blocked); enters counts the
	// reader's passes from a recvmsg to handing over what it read
	// (arrivalReader); waitFor is set by the loop while it waits for the
	// pass of that number to end; id names the connection in the loop's
	// epoll set. slowAt and slowUntil (the loop's) mark a reader it
	// waited for in vain: not waited for until it begins another pass,
	// nor before slowUntil (monoNow).
	await     atomic.Int32
	enters    atomic.Uint64
	waitFor   atomic.Uint64
	id        uint64
	slowAt    uint64
	slowUntil int64

	// wmu orders writes to nc between the reader (which writes its own
	// replies when it waited for them) and the writer goroutine.
	wmu     sync.Mutex
	mu      sync.Mutex
	out     []byte
	spare   []byte
	closing bool
	aborted bool // closed at once, output dropped (Abort)
	waiting bool // the reader waits for its batch and will write the output
	wake    chan struct{}
	blocked chan struct{}
	done    chan struct{}
}

// batch is one pipeline: the parsed commands and the buffer their
// arguments point into.
type batch struct {
	cmds  [][][]byte
	args  [][]byte
	ack   func()
	bytes int
	// arrived is when the kernel received the last bytes read before the
	// batch was handed over (Unix ns; see arrivalReader): the loop runs
	// the batches it has in this order.
	arrived int64
	// timed is set when slow requests are reported (SlowRequest); st
	// are then the batch's moments.
	timed bool
	st    stamps
	// untimed (the reader's own) is set when the client blocked while
	// the batch was out: not reported as slow.
	untimed bool
}

const (
	tlsHandshakeTimeout = 10 * time.Second

	readChunk      = 16 * 1024
	maxOutstanding = 64 // batches in flight before the reader waits
	// writeChunk bounds one write to the socket, so that pending falls as
	// a slow reader takes the output in, as Redis writes at most
	// NET_MAX_WRITES_PER_EVENT bytes at a time.
	writeChunk = 64 * 1024
)

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		s:       s,
		nc:      nc,
		rw:      newRawWriter(nc),
		ready:   make(chan struct{}),
		acks:    make(chan *batch, maxOutstanding+1),
		wake:    make(chan struct{}, 1),
		blocked: make(chan struct{}, 1),
		done:    make(chan struct{}),
		stop:    make(chan struct{}),
	}
	return c
}

func (c *conn) newBatch() *batch {
	b := &batch{}
	b.ack = func() {
		if b.timed {
			b.st.done = wallNow()
		}
		c.await.Add(-1)
		select {
		case c.acks <- b:
		default:
			c.mu.Lock()
			c.overflow = append(c.overflow, b)
			c.mu.Unlock()
		}
	}
	return b
}

// takeAck returns a finished batch: at once, or nil if none is (wait
// false), or when one finishes, nil when the connection is stopped.
func (c *conn) takeAck(wait bool) *batch {
	c.mu.Lock()
	if n := len(c.overflow); n > 0 {
		b := c.overflow[n-1]
		c.overflow[n-1] = nil
		c.overflow = c.overflow[:n-1]
		c.mu.Unlock()
		return b
	}
	c.mu.Unlock()
	if !wait {
		select {
		case b := <-c.acks:
			return b
		default:
			return nil
		}
	}
	select {
	case b := <-c.acks:
		return b
	case <-c.stop:
		return nil
	}
}

// shutdown closes the connection and stops its reader's waits.
func (c *conn) shutdown() {
	c.stopOnce.Do(func() { close(c.stop) })
	c.nc.Close()
}

// Deliver implements engine.Conn. Called by the command goroutine.
func (c *conn) Deliver(b []byte) {
	c.mu.Lock()
	if c.aborted {
		c.mu.Unlock()
		return
	}
	c.out = append(c.out, b...)
	c.pending.Add(int64(len(b)))
	waiting := c.waiting
	c.mu.Unlock()
	if waiting {
		return // the reader writes it after its batch completes
	}
	if c.rw != nil && c.wmu.TryLock() {
		done := c.writeNow()
		c.wmu.Unlock()
		if done {
			return
		}
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeNow writes the pending output, up to writeChunk, as far as the
// socket takes it without waiting (the caller holds wmu), and reports
// whether none is left for the writer goroutine. The command goroutine
// delivers replies by it, as Redis's beforeSleep writes them: a reply
// the socket has room for (nearly every one) goes out without waking the
// writer goroutine, which on a busy node costs as much CPU as the write.
// What the socket does not take, output past writeChunk, a write that
// fails and a closing connection are the writer's, in order: it holds
// wmu to write, so output never interleaves.
func (c *conn) writeNow() bool {
	c.mu.Lock()
	out := c.out
	if c.closing || len(out) == 0 {
		c.mu.Unlock()
		return len(out) == 0 && !c.closing
	}
	c.mu.Unlock()
	// One write at most, as Redis writes NET_MAX_WRITES_PER_EVENT to a
	// client per event: a large output takes the writer goroutine's
	// time, never the command goroutine's.
	written, _ := c.rw.writeOnce(out[:min(len(out), writeChunk)])
	c.pending.Add(-int64(written))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aborted {
		return true // its output is dropped
	}
	// Others may have delivered meanwhile (appended after out's bytes).
	if written == len(c.out) {
		c.out = c.out[:0]
	} else {
		c.out = c.out[written:] // no copy: the writer takes it from here
	}
	return len(c.out) == 0 && !c.closing
}

// Close implements engine.Conn: pending output is written, then the
// connection is closed.
func (c *conn) Close() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Abort implements engine.Conn: the connection closes now, and output
// not yet written is dropped (Redis's freeClientAsync). It never waits: a
// write blocked on a peer that does not read fails at once.
func (c *conn) Abort() {
	c.mu.Lock()
	c.closing, c.aborted = true, true
	c.out, c.spare = nil, nil
	c.mu.Unlock()
	c.shutdown()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Pending implements engine.Conn.
func (c *conn) Pending() int64 { return c.pending.Load() }

// QueryBuffer implements engine.Conn.
func (c *conn) QueryBuffer() (used, free int64) { return c.qbuf.Load(), c.qfree.Load() }

// Blocked implements engine.Conn.
func (c *conn) Blocked(held bool) {
	c.held.Store(held)
	select {
	case c.blocked <- struct{}{}:
	default:
	}
}

// RemoteAddr implements engine.Conn.
func (c *conn) RemoteAddr() string { return c.nc.RemoteAddr().String() }

// LocalAddr implements engine.Conn.
func (c *conn) LocalAddr() string { return c.nc.LocalAddr().String() }

func (c *conn) writeLoop() {
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		if !c.flushOut(false) {
			return
		}
	}
}

// flushOut writes pending output; stopWaiting also ends the reader's
// waiting state. It returns false once the connection is closed.
func (c *conn) flushOut(stopWaiting bool) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	out := c.out
	c.out = c.spare[:0]
	c.spare = nil
	if stopWaiting {
		c.waiting = false
	}
	closing, aborted := c.closing, c.aborted
	c.mu.Unlock()
	if aborted {
		return false
	}
	for rest := out; len(rest) > 0; {
		chunk := rest[:min(len(rest), writeChunk)]
		n, err := c.nc.Write(chunk)
		c.pending.Add(-int64(n))
		if err != nil {
			c.nc.Close()
			return false
		}
		rest = rest[n:]
	}
	c.mu.Lock()
	if cap(out) <= 256*1024 && c.spare == nil {
		c.spare = out[:0]
	}
	if closing && len(c.out) == 0 {
		c.mu.Unlock()
		c.nc.Close()
		return false
	}
	c.mu.Unlock()
	return true
}

func (c *conn) serve() {
	s := c.s
	defer s.connWG.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	writerDone := make(chan struct{})
	go func() { c.writeLoop(); close(writerDone) }()
	defer func() {
		c.nc.Close()
		close(c.done)
		<-writerDone
	}()
	if tc, ok := c.nc.(*tls.Conn); ok {
		// The handshake first: as in Redis, a client exists (and is
		// counted) once it is done.
		tc.SetDeadline(time.Now().Add(tlsHandshakeTimeout))
		err := tc.Handshake()
		tc.SetDeadline(time.Time{})
		if err != nil {
			s.log.Debug("TLS handshake failed", "addr", c.nc.RemoteAddr().String(), "err", err)
			return
		}
	}
	if !s.submit(request{c: c, kind: reqConnect}) {
		return
	}
	<-c.ready
	if c.client == nil {
		<-writerDone // turned away (protected mode): the message goes out
		return
	}
	setKeepAlive(c.nc, c.keepalive)
	defer s.submit(request{c: c, kind: reqClose})
	// A TLS connection's requests arrive when its reader decrypts them.
	ar := newArrivalReader(c)
	if ar != nil {
		defer ar.close()
	}

	var (
		buf         = make([]byte, readChunk)
		start, end  int
		outstanding int
		inflight    int // bytes of the requests in outstanding batches
		free        []*batch
		// blocked is set while the client is blocked for any time
		// (BLPOP, CLIENT PAUSE, WAIT; not a proposal in flight, which
		// ends soon): its batches wait in the engine, the reader keeps
		// reading, and only client-query-buffer-limit bounds what it
		// holds, as Redis's query buffer grows while a client is
		// blocked.
		blocked bool
		// arrived is when the bytes read last arrived, never earlier
		// than for the read before.
		arrived int64
		// perr is a protocol error in the input (the connection then
		// closes). Declared here, not per request: errors.As takes its
		// address, which puts it on the heap.
		perr *resp.ProtocolError
		// timed: slow requests are reported (Config.OnSlowRequest);
		// readAt is when the bytes read last were read.
		timed  = s.cfg.SlowRequestThreshold > 0 && s.cfg.OnSlowRequest != nil
		readAt int64
	)
	// reclaim takes a finished batch back.
	reclaim := func(fb *batch) {
		outstanding--
		inflight -= fb.bytes
		fb.cmds, fb.args, fb.bytes, fb.untimed = fb.cmds[:0], fb.args[:0], 0, false
		free = append(free, fb)
	}
	for {
		// Parse every complete request in the buffer into one batch.
		var b *batch
		oneByOne := false
		// Before AUTH a request is parsed only once the one before it
		// ran (an AUTH waiting for CLIENT PAUSE), with the limits it
		// left, as Redis parses nothing of a blocked client's input.
		if start < end && (outstanding == 0 || c.authed.Load()) {
			if len(free) > 0 {
				b = free[len(free)-1]
				free = free[:len(free)-1]
			} else {
				b = c.newBatch()
			}
			lim := c.limits()
			n, err := parseRequests(&c.parser, buf[start:end], &b.args, &b.cmds, lim)
			start += n
			b.bytes += n
			if err != nil && errors.As(err, &perr) {
				start = end
			}
			// Before AUTH one command is parsed; the rest waits for
			// its batch.
			oneByOne = err == nil && !lim.Authenticated && len(b.cmds) > 0
		}
		if b != nil && len(b.cmds) > 0 {
			// Wait for the batch and write its replies from this goroutine:
			// one wake-up fewer per request than handing them to the writer.
			// If the client blocks (BLPOP), go back to reading instead.
			c.mu.Lock()
			c.waiting = true
			c.mu.Unlock()
			b.arrived = arrived
			b.timed = timed
			b.untimed = blocked // it waits behind the blocked command
			b.st = stamps{read: readAt}
			if ar != nil {
				ar.handing()
			}
			if !s.submit(request{c: c, b: b, kind: reqBatch}) {
				return
			}
			c.await.Add(1)
			if ar != nil {
				ar.handed()
			}
			outstanding++
			inflight += b.bytes
			var (
				fbTimed   bool
				fbArrived int64
				fbStamps  stamps
				fbCmds    int
			)
			select {
			case fb := <-c.acks:
				// It may be an earlier batch than b: one of a client that
				// blocked, which waited on purpose and is not timed.
				fbTimed, fbArrived, fbStamps, fbCmds = fb.timed && !fb.untimed, fb.arrived, fb.st, len(fb.cmds)
				reclaim(fb)
				blocked = false
			case <-c.blocked:
				blocked = c.held.Load()
				b.untimed = b.untimed || blocked
			case <-c.stop:
				return
			}
			if !c.flushOut(true) {
				return
			}
			if fbTimed {
				s.slowRequest(c.nc.RemoteAddr().String(), fbArrived, fbStamps, fbCmds)
			}
		} else if b != nil {
			// Bytes of requests with no arguments (an empty line) only.
			b.bytes = 0
			free = append(free, b)
		}
		if ar != nil {
			ar.done() // a partial request is not an arrival yet
		}
		if perr != nil {
			// Commands before the bad one ran; now the error, then close.
			for outstanding > 0 {
				fb := c.takeAck(true)
				if fb == nil {
					return
				}
				reclaim(fb)
			}
			var w resp.Writer
			w.Error("ERR " + perr.Error())
			s.submit(request{kind: reqCall, fn: func() { s.eng.CountErrorReply(string(w.B[1 : len(w.B)-2])) }})
			c.Deliver(w.B)
			c.Close()
			<-writerDone
			return
		}
		// Reclaim finished batches without waiting.
		for outstanding > 0 {
			fb := c.takeAck(false)
			if fb == nil {
				break
			}
			reclaim(fb)
		}
		if outstanding == 0 {
			blocked = false
		}
		for outstanding >= maxOutstanding && !blocked {
			fb := c.takeAck(true)
			if fb == nil {
				return
			}
			reclaim(fb)
		}
		waited := false
		for start < end && outstanding > 0 && !c.authed.Load() {
			// Unparsed requests behind a command that runs before AUTH:
			// wait for it rather than read on (see above).
			fb := c.takeAck(true)
			if fb == nil {
				return
			}
			reclaim(fb)
			waited = true
		}
		if (oneByOne || waited) && start < end && outstanding == 0 {
			continue // parse the next request with the updated limits
		}
		// Make room to read. While batches are in flight their arguments
		// point into buf, so it is only rewound when none are.
		if start == end && outstanding == 0 {
			start, end = 0, 0
		}
		if end == len(buf) {
			need := end - start + readChunk
			if want := c.parser.Need(); want > need {
				need = want
			}
			if outstanding == 0 && start > 0 && need <= len(buf) {
				copy(buf, buf[start:end])
			} else {
				nb := make([]byte, max(need, 2*len(buf)-start))
				copy(nb, buf[start:end])
				buf = nb
			}
			end -= start
			start = 0
		}
		c.qbuf.Store(int64(end - start + inflight))
		c.qfree.Store(int64(len(buf) - end))
		var (
			n   int
			at  int64
			err error
		)
		if ar != nil {
			n, at, err = ar.Read(buf[end:])
		} else {
			n, err = c.nc.Read(buf[end:])
			at = time.Now().UnixNano()
		}
		if n > 0 {
			end += n
			arrived = max(arrived, at)
			if timed {
				readAt = wallNow()
			}
		}
		if err != nil {
			return
		}
		// client-query-buffer-limit: what was read and has not run yet,
		// the partial request and the pipelines waiting (a blocked client
		// keeps reading), as Redis's query buffer holds them.
		qbuf := int64(end - start + inflight)
		c.qbuf.Store(qbuf)
		if qbuf > s.queryLimit.Load() {
			from := start + c.parser.QueryStart()
			head := append([]byte(nil), buf[from:min(end, from+64)]...)
			s.submit(request{kind: reqCall, fn: func() { s.eng.CloseQueryBufferLimit(c.client, head) }})
			return
		}
	}
}

func (c *conn) limits() resp.Limits {
	return resp.Limits{Authenticated: c.authed.Load(), MaxBulkLen: c.s.maxBulk.Load()}
}

// SetAuthenticated is engine.Conn's: the engine tells the reader the
// client's authentication state (on connect, AUTH, HELLO AUTH, RESET and
// requirepass changes).
func (c *conn) SetAuthenticated(ok bool) { c.authed.Store(ok) }

// setKeepAlive applies tcp-keepalive as Redis's anetKeepAlive: probes
// after secs idle, then every secs/3, three of them; 0 turns them off.
func setKeepAlive(nc net.Conn, secs int) {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	tcp, ok := nc.(*net.TCPConn)
	if !ok {
		return
	}
	if secs <= 0 {
		tcp.SetKeepAlive(false)
		return
	}
	idle := time.Duration(secs) * time.Second
	tcp.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: idle, Interval: max(idle/3, time.Second), Count: 3})
}

// parseRequests parses the complete requests at the head of buf into
// one batch: each command goes to *cmds, its arguments into the spare
// capacity of *args (a new array when fewer than 8 slots are left;
// earlier commands keep the old one, so nothing is copied). Before AUTH
// (lim.Authenticated false) it stops after one command: the limits for
// the next request depend on whether this one authenticates. n is the
// bytes consumed; err is Parse's, at the first request that is
// incomplete or, a *resp.ProtocolError, malformed. Both connection paths
// parse with it.
func parseRequests(p *resp.Parser, buf []byte, args *[][]byte, cmds *[][][]byte, lim resp.Limits) (n int, err error) {
	a, cs := *args, *cmds
	defer func() { *args, *cmds = a, cs }()
	for n < len(buf) {
		if cap(a)-len(a) < 8 {
			a = make([][]byte, 0, 2*cap(a)+64)
		}
		argv := a[len(a):cap(a)]
		got, m, err := p.Parse(buf[n:], argv, lim)
		if err != nil {
			return n, err
		}
		n += m
		if got == nil {
			continue
		}
		if len(got) > 0 && &got[0] == &argv[:1][0] {
			a = a[:len(a)+len(got)]
		}
		cs = append(cs, got)
		if !lim.Authenticated {
			return n, nil
		}
	}
	return n, nil
}
