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
	// counts the batches handed over and not finished; enters counts the
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
	// replies when it waited for them), the command goroutine (writeNow)
	// and the writer goroutine.
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
}

const (
	tlsHandshakeTimeout = 10 * time.Second

	readChunk = 16 * 1024
	// maxOutstanding bounds the batches in flight before the reader
	// waits (but for a blocked client's): a reader that reads on reads
	// one pipeline ahead of the command goroutine, all an unpipelined
	// client needs; each batch in flight holds its arguments' arrays and
	// its buffer (eight held a third more live heap in TestLoad).
	maxOutstanding = 2
	// maxPendingAhead: with more output than this not yet written (the
	// client does not read it), a reader that reads on waits for its
	// next batch and writes the replies itself, and so stalls while the
	// socket is full, as every reader did before it read on.
	maxPendingAhead = writeChunk
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
	r := &reader{
		c:          c,
		ar:         ar,
		writerDone: writerDone,
		buf:        make([]byte, readChunk),
		timed:      s.cfg.SlowRequestThreshold > 0 && s.cfg.OnSlowRequest != nil,
	}
	// Linux TCP: the command goroutine writes the replies (conn.writeNow)
	// and the reader reads on. Timed requests are the reader's to write
	// and report (SlowRequest), as are a TLS connection's, whose writes
	// only the writer goroutine could make otherwise.
	r.nowait = c.rw != nil && !r.timed
	for {
		if !r.process() {
			return
		}
		p := r.room()
		var (
			n   int
			at  int64
			err error
		)
		if ar != nil {
			n, at, err = ar.Read(p)
		} else {
			n, err = c.nc.Read(p)
			at = time.Now().UnixNano()
		}
		if !r.got(n, at) {
			if err == nil {
				r.overLimit()
			}
			return
		}
		if err != nil {
			r.finish()
			return
		}
	}
}

// finish waits, when the client closed its side (or the connection
// failed), for the batches it sent before to run and their replies to be
// delivered, as Redis runs what it read before it reads the end: a
// client that sends its requests and then shuts down its writing side
// gets its replies. Not a blocked client's (Redis frees it at once), and
// not when the server closes the connection (stop).
func (r *reader) finish() {
	for r.outstanding > 0 && !r.blocked {
		if !r.waitAck() {
			return
		}
	}
}

// reader is a connection's reader goroutine (serve): its query buffer,
// the batches it handed over, and what it waits for.
//
// On Linux TCP (nowait) the reader never waits for a batch: it hands it
// over and reads on, and the command goroutine writes the replies
// (conn.Deliver, writeNow), as Redis reads, runs and writes from one
// loop. Elsewhere (TLS, other systems, timed requests) and before AUTH
// it waits for each batch and writes its replies itself (flushOut):
// there, output a reader does not wait for takes a wake-up of the
// writer goroutine.
//
// Each read begins with a recvmsg that, after an unpipelined request,
// finds nothing yet (RawConn.Read forgets the poller's readiness when it
// begins). Staying inside one RawConn.Read, and waiting for the poller
// after a recvmsg that returned less than the room offered, would spare
// it, but loses the end of the stream: a FIN or RST that arrives with a
// client's last request is reported by the poller once, with the data,
// and only a second recvmsg sees it (TestReaderHalfClose).
type reader struct {
	c          *conn
	ar         *arrivalReader // nil: not a TCP connection on Linux
	writerDone chan struct{}
	nowait     bool

	buf         []byte
	start, end  int
	outstanding int
	inflight    int // bytes of the requests in outstanding batches
	free        []*batch
	// next is a batch parsed and not yet handed over (with no commands:
	// empty lines only); oneByOne: it was parsed before AUTH, one
	// command.
	next     *batch
	oneByOne bool
	// blocked is set while the client is blocked for any time (BLPOP,
	// CLIENT PAUSE, WAIT; not a proposal in flight, which ends soon):
	// its batches wait in the engine, the reader keeps reading, and only
	// client-query-buffer-limit bounds what it holds, as Redis's query
	// buffer grows while a client is blocked.
	blocked bool
	// arrived is when the bytes read last arrived, never earlier than
	// for the read before.
	arrived int64
	// perr is a protocol error in the input (the connection then
	// closes). A field, not a local: errors.As takes its address.
	perr *resp.ProtocolError
	// timed: slow requests are reported (Config.OnSlowRequest); readAt
	// is when the bytes read last were read.
	timed  bool
	readAt int64
	// over: what was read passed client-query-buffer-limit.
	over bool
}

// reclaim takes a finished batch back.
func (r *reader) reclaim(fb *batch) {
	r.outstanding--
	r.inflight -= fb.bytes
	fb.cmds, fb.args, fb.bytes = fb.cmds[:0], fb.args[:0], 0
	r.free = append(r.free, fb)
}

// reclaimDone takes back the batches finished, without waiting.
func (r *reader) reclaimDone() {
	c := r.c
	for r.outstanding > 0 {
		fb := c.takeAck(false)
		if fb == nil {
			break
		}
		r.reclaim(fb)
		r.blocked = false
	}
	if r.nowait {
		select {
		case <-c.blocked:
			r.blocked = c.held.Load()
		default:
		}
	}
	if r.outstanding == 0 {
		r.blocked = false
	}
}

// waitAck waits for a batch to finish or the client to block; false when
// the connection stopped.
func (r *reader) waitAck() bool {
	c := r.c
	if fb := c.takeAck(false); fb != nil {
		r.reclaim(fb)
		r.blocked = false
		return true
	}
	select {
	case fb := <-c.acks:
		r.reclaim(fb)
		r.blocked = false
	case <-c.blocked:
		r.blocked = c.held.Load()
	case <-c.stop:
		return false
	}
	return true
}

// parse parses every complete request in the buffer into one batch, next
// (nil when the buffer holds none).
func (r *reader) parse() {
	c := r.c
	var b *batch
	r.oneByOne = false
	for r.start < r.end {
		if b == nil {
			if len(r.free) > 0 {
				b = r.free[len(r.free)-1]
				r.free = r.free[:len(r.free)-1]
			} else {
				b = c.newBatch()
			}
		}
		if cap(b.args)-len(b.args) < 8 {
			// Earlier commands keep the old array; no copy needed.
			b.args = make([][]byte, 0, 2*cap(b.args)+64)
		}
		argv := b.args[len(b.args):cap(b.args)]
		args, n, err := c.parser.Parse(r.buf[r.start:r.end], argv, c.limits())
		if err != nil {
			if errors.As(err, &r.perr) {
				r.start = r.end
			}
			break
		}
		r.start += n
		b.bytes += n
		if args == nil {
			continue
		}
		if len(args) > 0 && &args[0] == &argv[:1][0] {
			b.args = b.args[:len(b.args)+len(args)]
		}
		b.cmds = append(b.cmds, args)
		if !c.authed.Load() {
			// Before AUTH, one command at a time: the limits for the
			// next request depend on whether this one authenticates.
			r.oneByOne = true
			break
		}
	}
	r.next = b
}

// process hands over the complete requests the buffer holds, and
// returns true when the reader may read again, false when it stopped
// (the connection is closed or closing).
func (r *reader) process() bool {
	for {
		if r.next == nil {
			r.parse()
		}
		if b := r.next; b != nil {
			if len(b.cmds) == 0 {
				// Bytes of requests with no arguments (an empty line) only.
				b.bytes = 0
				r.free = append(r.free, b)
				r.next = nil
			} else if !r.handOver() {
				return false
			}
		}
		if r.ar != nil {
			r.ar.done() // a partial request is not an arrival yet
		}
		if r.perr != nil {
			r.protocolError()
			return false
		}
		r.reclaimDone()
		for r.outstanding >= maxOutstanding && !r.blocked {
			if !r.waitAck() {
				return false
			}
		}
		if r.oneByOne && r.start < r.end && r.outstanding == 0 {
			continue // parse the next request with the updated limits
		}
		return true
	}
}

// handOver submits next to the command goroutine; false when the
// connection stopped. Where the reader waits for its batches, it waits
// for this one and writes the replies.
func (r *reader) handOver() bool {
	c, s, b := r.c, r.c.s, r.next
	wait := !r.nowait || r.oneByOne || c.pending.Load() > maxPendingAhead
	b.arrived = r.arrived
	b.timed = r.timed
	b.st = stamps{read: r.readAt}
	if wait {
		c.mu.Lock()
		c.waiting = true
		c.mu.Unlock()
	}
	if r.ar != nil {
		r.ar.handing()
	}
	if !s.submit(request{c: c, b: b, kind: reqBatch}) {
		return false
	}
	r.next = nil
	c.await.Add(1)
	if r.ar != nil {
		r.ar.handed()
	}
	r.outstanding++
	r.inflight += b.bytes
	if !wait {
		return true
	}
	// Wait for the batch and write its replies from this goroutine: one
	// wake-up fewer per request than handing them to the writer. If the
	// client blocks (BLPOP), go back to reading instead.
	var (
		fbTimed   bool
		fbArrived int64
		fbStamps  stamps
		fbCmds    int
	)
	select {
	case fb := <-c.acks:
		fbTimed, fbArrived, fbStamps, fbCmds = fb.timed, fb.arrived, fb.st, len(fb.cmds)
		r.reclaim(fb)
		r.blocked = false
	case <-c.blocked:
		r.blocked = c.held.Load()
	case <-c.stop:
		return false
	}
	if !c.flushOut(true) {
		return false
	}
	if fbTimed {
		s.slowRequest(c, fbArrived, fbStamps, fbCmds)
	}
	return true
}

// protocolError answers a protocol error and closes the connection: the
// commands before the bad one ran, then the error goes out.
func (r *reader) protocolError() {
	c, s := r.c, r.c.s
	for r.outstanding > 0 {
		fb := c.takeAck(true)
		if fb == nil {
			return
		}
		r.reclaim(fb)
	}
	var w resp.Writer
	w.Error("ERR " + r.perr.Error())
	s.submit(request{kind: reqCall, fn: func() { s.eng.CountErrorReply(string(w.B[1 : len(w.B)-2])) }})
	c.Deliver(w.B)
	c.Close()
	<-r.writerDone
}

// room takes back the finished batches and returns the buffer's room to
// read into; it never waits.
func (r *reader) room() []byte {
	c := r.c
	r.reclaimDone()
	// While batches are in flight their arguments point into buf, so it
	// is only rewound when none are.
	if r.start == r.end && r.outstanding == 0 {
		r.start, r.end = 0, 0
	}
	if r.end == len(r.buf) {
		need := r.end - r.start + readChunk
		if want := c.parser.Need(); want > need {
			need = want
		}
		if r.outstanding == 0 && r.start > 0 && need <= len(r.buf) {
			copy(r.buf, r.buf[r.start:r.end])
		} else {
			// A request that fills the buffer doubles it. With batches
			// in flight the old buffer is theirs until they finish, and
			// the new one holds what is left and room to read: grown
			// from the old one's size, a reader that reads on (a new
			// buffer at each fill) would double it again and again.
			size := need
			if r.outstanding == 0 {
				size = max(need, 2*len(r.buf)-r.start)
			}
			nb := make([]byte, size)
			copy(nb, r.buf[r.start:r.end])
			r.buf = nb
		}
		r.end -= r.start
		r.start = 0
	}
	c.qbuf.Store(int64(r.end - r.start + r.inflight))
	c.qfree.Store(int64(len(r.buf) - r.end))
	return r.buf[r.end:]
}

// got records n bytes read into room's slice, which arrived at at, and
// reports whether what the reader holds is within
// client-query-buffer-limit: what was read and has not run yet, the
// partial request and the pipelines waiting (a blocked client keeps
// reading), as Redis's query buffer holds them. When it is not, over is
// set.
func (r *reader) got(n int, at int64) bool {
	c := r.c
	if n > 0 {
		r.end += n
		r.arrived = max(r.arrived, at)
		if r.timed {
			r.readAt = wallNow()
		}
	}
	qbuf := int64(r.end - r.start + r.inflight)
	c.qbuf.Store(qbuf)
	if qbuf > c.s.queryLimit.Load() {
		r.over = true
		return false
	}
	return true
}

// overLimit closes the client for client-query-buffer-limit (after got
// reported it over).
func (r *reader) overLimit() {
	c, s := r.c, r.c.s
	from := r.start + c.parser.QueryStart()
	head := append([]byte(nil), r.buf[from:min(r.end, from+64)]...)
	s.submit(request{kind: reqCall, fn: func() { s.eng.CloseQueryBufferLimit(c.client, head) }})
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
