package lockkv

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/commands"
	"github.com/lockkv/lockkv/internal/resp"
)

// conn is one client connection. Its reader goroutine parses requests and
// hands each pipeline to the command goroutine as one batch; its writer
// goroutine writes whatever the command goroutine delivers, so replies,
// pub/sub messages and invalidations leave in the order they were made.
type conn struct {
	s      *Server
	nc     net.Conn
	client *commands.Client
	ready  chan struct{}
	// keepalive is tcp-keepalive when the client connected (seconds, 0:
	// off); the reader applies it. Set before ready is closed.
	keepalive int
	// authed mirrors the client's authentication state for the reader,
	// which applies Redis's tighter request limits before AUTH.
	authed atomic.Bool

	// acks returns finished batches to the reader for reuse.
	acks chan *batch

	// wmu orders writes to nc between the reader (which writes its own
	// replies when it waited for them) and the writer goroutine.
	wmu     sync.Mutex
	mu      sync.Mutex
	out     []byte
	spare   []byte
	closing bool
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
	conn  *conn
	ack   func()
	bytes int
}

const (
	tlsHandshakeTimeout = 10 * time.Second

	readChunk      = 16 * 1024
	maxOutstanding = 64 // batches in flight before the reader waits
)

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		s:       s,
		nc:      nc,
		ready:   make(chan struct{}),
		acks:    make(chan *batch, maxOutstanding+1),
		wake:    make(chan struct{}, 1),
		blocked: make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	return c
}

func (c *conn) newBatch() *batch {
	b := &batch{conn: c}
	b.ack = func() { c.acks <- b }
	return b
}

// Deliver implements commands.Conn. Called by the command goroutine.
func (c *conn) Deliver(b []byte) {
	c.mu.Lock()
	c.out = append(c.out, b...)
	waiting := c.waiting
	c.mu.Unlock()
	if waiting {
		return // the reader writes it after its batch completes
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Close implements commands.Conn: pending output is written, then the
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

// Blocked implements commands.Conn.
func (c *conn) Blocked() {
	select {
	case c.blocked <- struct{}{}:
	default:
	}
}

// RemoteAddr implements commands.Conn.
func (c *conn) RemoteAddr() string { return c.nc.RemoteAddr().String() }

// LocalAddr implements commands.Conn.
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
	closing := c.closing
	c.mu.Unlock()
	if len(out) > 0 {
		if _, err := c.nc.Write(out); err != nil {
			c.nc.Close()
			return false
		}
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

	var (
		buf         = make([]byte, readChunk)
		start, end  int
		outstanding int
		free        []*batch
	)
	for {
		// Parse every complete request in the buffer into one batch.
		var b *batch
		var perr *resp.ProtocolError
		oneByOne := false
		for start < end {
			if b == nil {
				if len(free) > 0 {
					b = free[len(free)-1]
					free = free[:len(free)-1]
				} else {
					b = c.newBatch()
				}
			}
			if cap(b.args)-len(b.args) < 8 {
				// Earlier commands keep the old array; no copy needed.
				b.args = make([][]byte, 0, 2*cap(b.args)+64)
			}
			argv := b.args[len(b.args):cap(b.args)]
			args, n, err := resp.ParseRequest(buf[start:end], argv, c.limits())
			if err != nil {
				if errors.As(err, &perr) {
					start = end
				}
				break
			}
			start += n
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
				oneByOne = true
				break
			}
		}
		if b != nil && len(b.cmds) > 0 {
			// Wait for the batch and write its replies from this goroutine:
			// one wake-up fewer per request than handing them to the writer.
			// If the client blocks (BLPOP), go back to reading instead.
			c.mu.Lock()
			c.waiting = true
			c.mu.Unlock()
			if !s.submit(request{c: c, b: b, kind: reqBatch}) {
				return
			}
			outstanding++
			select {
			case fb := <-c.acks:
				outstanding--
				fb.cmds, fb.args = fb.cmds[:0], fb.args[:0]
				free = append(free, fb)
			case <-c.blocked:
			}
			if !c.flushOut(true) {
				return
			}
		} else if b != nil {
			free = append(free, b)
		}
		if perr != nil {
			// Commands before the bad one ran; now the error, then close.
			for outstanding > 0 {
				<-c.acks
				outstanding--
			}
			msg := "ERR " + perr.Error()
			s.submit(request{kind: reqCall, fn: func() { s.eng.CountErrorReply(msg) }})
			c.Deliver([]byte("-" + msg + "\r\n"))
			c.Close()
			<-writerDone
			return
		}
		// Reclaim finished batches without waiting.
	reclaim:
		for outstanding > 0 {
			select {
			case fb := <-c.acks:
				outstanding--
				fb.cmds = fb.cmds[:0]
				fb.args = fb.args[:0]
				free = append(free, fb)
			default:
				break reclaim
			}
		}
		for outstanding >= maxOutstanding {
			fb := <-c.acks
			outstanding--
			fb.cmds, fb.args = fb.cmds[:0], fb.args[:0]
			free = append(free, fb)
		}
		if oneByOne && start < end && outstanding == 0 {
			continue // parse the next request with the updated limits
		}
		// Make room to read. While batches are in flight their arguments
		// point into buf, so it is only rewound when none are.
		if start == end && outstanding == 0 {
			start, end = 0, 0
		}
		if end == len(buf) {
			need := end - start + readChunk
			if want := resp.NeedBytes(buf[start:end]); want > need {
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
		n, err := c.nc.Read(buf[end:])
		if n > 0 {
			end += n
		}
		if err != nil {
			return
		}
	}
}

func (c *conn) limits() resp.Limits {
	return resp.Limits{Authenticated: c.authed.Load(), MaxBulkLen: c.s.maxBulk.Load()}
}

// SetAuthenticated implements the engine's authConn: AUTH, HELLO AUTH and
// RESET tell the reader the client's authentication state.
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
