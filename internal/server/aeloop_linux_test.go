//go:build linux

package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/internal/testutil"
	"golang.org/x/sys/unix"
)

// TestAELoop drives the experimental event loop (LOCKKV_AELOOP, both
// ways of waiting) through what lockkv-bench sends, a pipeline, a reply
// larger than the socket takes at once, a protocol error, QUIT, a client
// that disconnects, and Do.
func TestAELoop(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			dial := func() (net.Conn, *bufio.Reader) {
				nc, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { nc.Close() })
				return nc, bufio.NewReader(nc)
			}
			do := func(nc net.Conn, br *bufio.Reader, args ...string) string {
				t.Helper()
				var w resp.Writer
				w.Array(len(args))
				for _, a := range args {
					w.BulkString(a)
				}
				if _, err := nc.Write(w.B); err != nil {
					t.Fatal(err)
				}
				reply, err := resp.ReadReply(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				return string(reply)
			}
			nc, br := dial()
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"SET", "k", "v"}, "+OK\r\n"},
				{[]string{"GET", "k"}, "$1\r\nv\r\n"},
				{[]string{"HINCRBY", "h", "f", "1"}, ":1\r\n"},
				{[]string{"PEXPIRE", "h", "30000"}, ":1\r\n"},
				{[]string{"EVAL", "return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)", "1", "h", "f"}, ":2\r\n"},
				{[]string{"BOGUS"}, "-ERR unknown command 'BOGUS', with args beginning with: \r\n"},
			} {
				if got := do(nc, br, c.args...); got != c.want {
					t.Errorf("%q: %q, want %q", c.args, got, c.want)
				}
			}

			// A pipeline of 1,000 commands in one write.
			var w resp.Writer
			for i := 0; i < 1000; i++ {
				w.Array(2)
				w.BulkString("INCR")
				w.BulkString("n")
			}
			if _, err := nc.Write(w.B); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 1000; i++ {
				reply, err := resp.ReadReply(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf(":%d\r\n", i); string(reply) != want {
					t.Fatalf("INCR %d: %q", i, reply)
				}
			}

			// 8 MB of replies to a client that reads nothing for a while:
			// the loop keeps the rest for EPOLLOUT and serves others.
			big := strings.Repeat("x", 1<<20)
			do(nc, br, "SET", "big", big)
			w.B = w.B[:0]
			for i := 0; i < 8; i++ {
				w.Array(2)
				w.BulkString("GET")
				w.BulkString("big")
			}
			if _, err := nc.Write(w.B); err != nil {
				t.Fatal(err)
			}
			other, obr := dial()
			if got := do(other, obr, "GET", "k"); got != "$1\r\nv\r\n" {
				t.Fatalf("another client, while one does not read: %q", got)
			}
			want := []byte("$1048576\r\n" + big + "\r\n")
			for i := 0; i < 8; i++ {
				reply, err := resp.ReadReply(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(reply, want) {
					t.Fatalf("GET big %d: %d bytes", i, len(reply))
				}
			}

			// Do runs on the loop.
			var n int
			s.Do(func(e *engine.Engine) { n = len(e.Clients()) })
			if n != 2 {
				t.Errorf("%d clients, want 2", n)
			}

			// A protocol error after a command: its reply, the error, EOF.
			pe, pbr := dial()
			if _, err := pe.Write([]byte("*1\r\n$4\r\nPING\r\n*x\r\n")); err != nil {
				t.Fatal(err)
			}
			pe.SetReadDeadline(time.Now().Add(10 * time.Second))
			rest, _ := io.ReadAll(pbr)
			if want := "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"; string(rest) != want {
				t.Errorf("protocol error: %q, want %q", rest, want)
			}

			// A request and the end of the client's stream together:
			// the reply, then EOF.
			// Sent while the loop runs a script for another client, they
			// reach the socket together, reported by one edge.
			hc, hbr := dial()
			if got := do(hc, hbr, "PING"); got != "+PONG\r\n" {
				t.Fatalf("PING: %q", got)
			}
			var busy resp.Writer
			busy.Array(3)
			busy.BulkString("EVAL")
			busy.BulkString("local i = 0 while i < 2000000 do i = i + 1 end return i")
			busy.BulkString("0")
			if _, err := other.Write(busy.B); err != nil {
				t.Fatal(err)
			}
			if _, err := hc.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
				t.Fatal(err)
			}
			hc.(*net.TCPConn).CloseWrite()
			if got, err := resp.ReadReply(obr, nil); err != nil || string(got) != ":2000000\r\n" {
				t.Fatalf("EVAL: %q %v", got, err)
			}
			hc.SetReadDeadline(time.Now().Add(10 * time.Second))
			if rest, err := io.ReadAll(hbr); err != nil || string(rest) != "+PONG\r\n" {
				t.Errorf("PING, then FIN: %q %v", rest, err)
			}

			// QUIT: +OK, then EOF; a client that goes away is freed.
			if got := do(other, obr, "QUIT"); got != "+OK\r\n" {
				t.Errorf("QUIT: %q", got)
			}
			other.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := obr.ReadByte(); err != io.EOF {
				t.Errorf("after QUIT: %v, want EOF", err)
			}
			nc.Close()
			testutil.Eventually(t, 10*time.Second, func() error {
				s.Do(func(e *engine.Engine) { n = len(e.Clients()) })
				if n != 0 {
					return fmt.Errorf("%d clients", n)
				}
				return nil
			})
		})
	}
}

// aeClient is a test client of the event loop: one connection and its
// reader.
type aeClient struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func aeDial(t *testing.T, s *Server) *aeClient {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	return &aeClient{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *aeClient) send(args ...string) {
	c.t.Helper()
	var w resp.Writer
	w.Array(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
	if _, err := c.nc.Write(w.B); err != nil {
		c.t.Fatal(err)
	}
}

func (c *aeClient) receive() string {
	c.t.Helper()
	reply, err := resp.ReadReply(c.br, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return string(reply)
}

func (c *aeClient) do(args ...string) string {
	c.t.Helper()
	c.send(args...)
	return c.receive()
}

// aeLoopModes are the ways the event loop runs that its tests cover: a
// and b as LOCKKV_AELOOP says, and t: a with 4 I/O threads used for
// every round (runAE).
var aeLoopModes = []string{"a", "b", "t"}

// runAE starts a server on the event loop, waiting as mode says (a:
// a blocking epoll_wait, b: in Go's netpoller; t: a, with 4 I/O threads
// that read and write whenever there is one socket to).
func runAE(t *testing.T, mode string) *Server {
	t.Helper()
	if mode == "t" {
		mode = "a"
		t.Setenv("LOCKKV_AELOOP_THREADS", "4")
		t.Setenv("LOCKKV_AELOOP_FANOUT", "1")
	}
	t.Setenv("LOCKKV_AELOOP", mode)
	s := RunT(t)
	if s.ae == nil {
		t.Fatal("LOCKKV_AELOOP set, but the event loop does not run")
	}
	if os.Getenv("LOCKKV_AELOOP_THREADS") == "4" && (s.ae.io == nil || len(s.ae.io.workers) != 3) {
		t.Fatal("LOCKKV_AELOOP_THREADS=4, but the loop has no 3 I/O workers")
	}
	return s
}

// busyReply is -BUSY for a script, as a client reads it.
const busyReply = "-" + engine.ErrBusy + "\r\n"

// awaitBusy waits until c's command args gets -BUSY: a script spins past
// busy-reply-threshold.
func awaitBusy(t *testing.T, c *aeClient, args ...string) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := c.do(args...); got != busyReply {
			return fmt.Errorf("%q while the script spins: %q", args, got)
		}
		return nil
	})
}

// TestAELoopBusyScript: while a script runs past busy-reply-threshold the
// loop serves the other clients from inside it: -BUSY, SCRIPT KILL, a new
// connection; the script's own client's next request waits for it.
func TestAELoopBusyScript(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) { testAELoopBusyScript(t, runAE(t, mode)) })
	}
}

func testAELoopBusyScript(t *testing.T, s *Server) {
	a, b := aeDial(t, s), aeDial(t, s)
	if got := b.do("CONFIG", "SET", "busy-reply-threshold", "50"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", got)
	}
	a.send("EVAL", "local i = 0 while true do i = i + 1 end", "0")
	a.send("PING") // waits for the script
	awaitBusy(t, b, "GET", "k")
	// A client that connects meanwhile is served too.
	if got := aeDial(t, s).do("PING"); got != busyReply {
		t.Errorf("a new client's PING: %q, want -BUSY", got)
	}
	if got := b.do("SCRIPT", "KILL"); got != "+OK\r\n" {
		t.Fatalf("SCRIPT KILL: %q", got)
	}
	if got := a.receive(); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Errorf("the killed script's reply: %q", got)
	}
	if got := a.receive(); got != "+PONG\r\n" {
		t.Errorf("the PING sent after the script: %q", got)
	}
	if got := b.do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after the kill: %q", got)
	}
}

// TestAELoopBlocked: a blocked client's socket is read on: the commands
// it sends meanwhile queue behind the blocked one, and its disconnect
// frees it (and its blocking) at once.
func TestAELoopBlocked(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) { testAELoopBlocked(t, runAE(t, mode)) })
	}
}

func testAELoopBlocked(t *testing.T, s *Server) {
	a, b := aeDial(t, s), aeDial(t, s)
	a.send("BLPOP", "list", "0")
	a.send("SET", "after", "1")
	a.send("GET", "after")
	blocked := func(want int) {
		t.Helper()
		testutil.Eventually(t, 10*time.Second, func() error {
			got := b.do("INFO", "clients")
			if !strings.Contains(got, fmt.Sprintf("blocked_clients:%d\r\n", want)) {
				return fmt.Errorf("want %d blocked: %q", want, got)
			}
			return nil
		})
	}
	blocked(1)
	// The SET has not run: it waits behind the BLPOP.
	testutil.Eventually(t, 10*time.Second, func() error {
		var used int64
		s.Do(func(e *engine.Engine) {
			for _, c := range e.Clients() {
				if u, _ := c.Conn.QueryBuffer(); u > used {
					used = u
				}
			}
		})
		if used == 0 {
			return errors.New("the blocked client's commands are not in its query buffer")
		}
		return nil
	})
	if got := b.do("GET", "after"); got != "$-1\r\n" {
		t.Fatalf("GET after while the client is blocked: %q", got)
	}
	if got := b.do("RPUSH", "list", "x"); got != ":1\r\n" {
		t.Fatalf("RPUSH: %q", got)
	}
	for _, want := range []string{"*2\r\n$4\r\nlist\r\n$1\r\nx\r\n", "+OK\r\n", "$1\r\n1\r\n"} {
		if got := a.receive(); got != want {
			t.Errorf("blocked client: %q, want %q", got, want)
		}
	}

	// A blocked client that disconnects is freed while it is blocked.
	c := aeDial(t, s)
	c.send("BLPOP", "other", "0")
	blocked(1)
	c.nc.Close()
	blocked(0)
	if got := b.do("CLIENT", "LIST"); strings.Count(got, "id=") != 2 {
		t.Errorf("after the blocked client left: %q", got)
	}
}

// TestAELoopRunsByArrival: the event loop runs a round's batches in the
// order their last bytes arrived (DESIGN.md §4.2), not in epoll's order.
// While the loop is held, the publisher's socket becomes ready first
// with the start of its PUBLISH, then the SUBSCRIBE arrives on another
// connection, then the rest of the PUBLISH: epoll reports the publisher
// first, but the SUBSCRIBE was complete first and gets the message.
func TestAELoopRunsByArrival(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) { testAELoopRunsByArrival(t, runAE(t, mode)) })
	}
}

func testAELoopRunsByArrival(t *testing.T, s *Server) {
	sub, pub := aeDial(t, s), aeDial(t, s)
	sub.do("PING")
	pub.do("PING")
	publish := []byte("*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nx\r\n")
	for round := 0; round < 20; round++ {
		held, release := make(chan struct{}), make(chan struct{})
		go s.Do(func(*engine.Engine) { close(held); <-release })
		<-held
		oneCPU(t, func() {
			if _, err := pub.nc.Write(publish[:10]); err != nil {
				t.Fatal(err)
			}
			sub.send("SUBSCRIBE", "ch")
			if _, err := pub.nc.Write(publish[10:]); err != nil {
				t.Fatal(err)
			}
		})
		close(release)
		expectSubscribedFirst(t, round, pub.br, sub.br, sub.nc, "")
	}
}

// oneCPU runs f on one OS thread bound to one CPU, so that the loopback
// segments it sends are received in the order sent: each goes through
// the sending CPU's backlog, and a thread that moved between CPUs could
// have a later segment processed, and timestamped, before an earlier one
// (seen under load: the SUBSCRIBE then truly arrived after the PUBLISH).
func oneCPU(t *testing.T, f func()) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(all)*64; i++ {
		if all.IsSet(i) {
			one.Set(i)
			break
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &all)
	f()
}

// TestAELoopWriteChunk: the loop writes at most writeChunk of a
// client's output at a time (Redis's NET_MAX_WRITES_PER_EVENT), the rest
// in the next rounds, in order, to a client that reads it all.
func TestAELoopWriteChunk(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) { testAELoopWriteChunk(t, runAE(t, mode)) })
	}
}

func testAELoopWriteChunk(t *testing.T, s *Server) {
	c := aeDial(t, s)
	c.do("PING")
	out := make([]byte, 1<<20)
	for i := range out {
		out[i] = byte('a' + i%26)
	}
	var left, pending int64
	found := false
	s.Do(func(*engine.Engine) {
		for _, ac := range s.ae.conns {
			if ac != nil && ac.remote == c.nc.LocalAddr().String() {
				found = true
				ac.Deliver(out)
				left = int64(len(ac.out))
				pending = ac.Pending()
			}
		}
	})
	if !found {
		t.Fatal("no server side for the connection")
	}
	if left < int64(len(out)-writeChunk) || pending != left {
		t.Errorf("after one Deliver of %d bytes, %d left (Pending %d): want at least %d", len(out), left, pending, len(out)-writeChunk)
	}
	got := make([]byte, len(out))
	if _, err := io.ReadFull(c.br, got); err != nil || !bytes.Equal(got, out) {
		t.Fatalf("read the output: %v, equal %v", err, bytes.Equal(got, out))
	}
	if got := c.do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after: %q", got)
	}
}

// TestAELoopAppliesFlushed: output made by the replication layer's work
// (a Raft apply, a Do) goes out in the round that ran it: the loop never
// waits with output left in the engine (it would go out only at the
// next client event or cron).
func TestAELoopAppliesFlushed(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) { testAELoopAppliesFlushed(t, runAE(t, mode)) })
	}
}

func testAELoopAppliesFlushed(t *testing.T, s *Server) {
	sub := aeDial(t, s)
	if got := sub.do("SUBSCRIBE", "ch"); got != "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n" {
		t.Fatalf("SUBSCRIBE: %q", got)
	}
	var unflushed int // the loop's
	s.Do(func(e *engine.Engine) {
		s.ae.beforeSleep = func(bool) {
			for _, c := range e.Clients() {
				unflushed += len(c.W.B)
			}
		}
	})
	for i := 0; i < 10; i++ {
		s.Do(func(e *engine.Engine) {
			e.Call(e.NewClient(nil), [][]byte{[]byte("PUBLISH"), []byte("ch"), []byte("x")})
		})
		if got := sub.receive(); got != "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n" {
			t.Fatalf("message: %q", got)
		}
	}
	var n int
	s.Do(func(*engine.Engine) { n = unflushed })
	if n != 0 {
		t.Errorf("the loop waited with %d bytes of output left in the engine", n)
	}
}

// TestBlockedQueryBufferLimit: a blocked client's input is read on into
// its query buffer, commands queued behind the blocked one included, and
// client-query-buffer-limit closes it there, as in Redis; none of the
// queued commands ran. On both connection paths.
func TestBlockedQueryBufferLimit(t *testing.T) {
	for _, ae := range aeModes {
		t.Run("LOCKKV_AELOOP="+ae, func(t *testing.T) {
			t.Setenv("LOCKKV_AELOOP", ae)
			s := RunT(t)
			admin, c := aeDial(t, s), aeDial(t, s)
			if got := admin.do("CONFIG", "SET", "client-query-buffer-limit", "1mb"); got != "+OK\r\n" {
				t.Fatalf("CONFIG SET: %q", got)
			}
			c.send("BLPOP", "list", "0")
			testutil.Eventually(t, 10*time.Second, func() error {
				if got := admin.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") {
					return errors.New("not blocked yet")
				}
				return nil
			})
			set := []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
			go c.nc.Write(bytes.Repeat(set, 2*(1<<20)/len(set)))
			c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			// EOF, or a reset: it closed with input unread.
			var ne net.Error
			if rest, err := io.ReadAll(c.br); len(rest) != 0 || errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the blocked client over the limit: %q %v, want it closed", rest, err)
			}
			if got := admin.do("EXISTS", "k"); got != ":0\r\n" {
				t.Errorf("EXISTS k: %q: a command queued behind BLPOP ran", got)
			}
			if got := admin.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:0\r\n") {
				t.Errorf("after the close: %q", got)
			}
		})
	}
}

// TestAEConnFill drives a connection's part of a read (aeConn.fill)
// without a loop (c.l is nil, so a fill that touched the loop would
// panic) and checks the result the loop would apply: a batch, a
// protocol error now or after the batches out, over the query limit,
// read again, end of file, and a socket skipped while a batch is out.
// Then several connections fill at once, as the I/O workers do;
// under -race this checks that fills of
// different connections share nothing.
func TestAEConnFill(t *testing.T) {
	lim := aeReadLimits{queryLimit: 1 << 20, maxBulk: 512 << 20}
	newConn := func(t *testing.T, bufSize int) (*aeConn, int) {
		t.Helper()
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
		return &aeConn{fd: fds[0], client: &engine.Client{}, authed: true, buf: make([]byte, bufSize)}, fds[1]
	}
	send := func(t *testing.T, fd int, s string) {
		t.Helper()
		if n, err := unix.Write(fd, []byte(s)); err != nil || n != len(s) {
			t.Fatalf("write: %d, %v", n, err)
		}
	}
	fill := func(c *aeConn, lim aeReadLimits) aeRead {
		var r aeRead
		c.fill(&lim, &r)
		return r
	}
	cmds := func(b *aeBatch) string {
		var parts []string
		for _, cmd := range b.cmds {
			parts = append(parts, string(bytes.Join(cmd, []byte(" "))))
		}
		return strings.Join(parts, "|")
	}
	const ping, getk = "*1\r\n$4\r\nPING\r\n", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"

	t.Run("batch", func(t *testing.T) {
		c, peer := newConn(t, readChunk)
		if r := fill(c, lim); r != (aeRead{}) {
			t.Fatalf("nothing to read: %+v", r)
		}
		send(t, peer, ping+getk+"*1\r\n$4\r\nPI")
		r := fill(c, lim)
		if r.batch == nil || r.again || r.abort || r.overLimit || r.perr != "" {
			t.Fatalf("%+v, want a batch only", r)
		}
		if got := cmds(r.batch); got != "PING|GET k" {
			t.Errorf("batch %q", got)
		}
		if r.batch.bytes != len(ping+getk) || c.outstanding != 1 || c.inflight != len(ping+getk) || r.batch.arrived == 0 {
			t.Errorf("bytes %d, outstanding %d, inflight %d, arrived %d", r.batch.bytes, c.outstanding, c.inflight, r.batch.arrived)
		}
		// A batch is out and the client is not held: not read.
		send(t, peer, "NG\r\n")
		if r := fill(c, lim); r != (aeRead{}) || !c.skipped {
			t.Fatalf("with a batch out: %+v, skipped %v", r, c.skipped)
		}
		// Held (BLPOP): read on; the rest of the PING is the next batch.
		c.held = true
		if r := fill(c, lim); r.batch == nil || cmds(r.batch) != "PING" || c.outstanding != 2 {
			t.Fatalf("held: %+v, outstanding %d", r, c.outstanding)
		}
	})
	t.Run("before AUTH", func(t *testing.T) {
		c, peer := newConn(t, readChunk)
		c.authed = false
		send(t, peer, ping+getk)
		if r := fill(c, lim); r.batch == nil || cmds(r.batch) != "PING" || !c.unparsed {
			t.Fatalf("%+v, unparsed %v; want one command, the rest unparsed", r, c.unparsed)
		}
	})
	t.Run("protocol error", func(t *testing.T) {
		c, peer := newConn(t, readChunk)
		send(t, peer, "*1\r\n$x\r\n")
		r := fill(c, lim)
		if r.batch != nil || r.perr != "ERR Protocol error: invalid bulk length" || c.perrMsg != "" {
			t.Fatalf("%+v, perrMsg %q; want the error now", r, c.perrMsg)
		}
		// After a request: the error waits for the batch.
		c, peer = newConn(t, readChunk)
		send(t, peer, ping+"*1\r\n$x\r\n")
		r = fill(c, lim)
		if r.batch == nil || cmds(r.batch) != "PING" || r.perr != "" || c.perrMsg != "ERR Protocol error: invalid bulk length" {
			t.Fatalf("%+v, perrMsg %q; want the batch, the error after it", r, c.perrMsg)
		}
	})
	t.Run("query buffer limit", func(t *testing.T) {
		c, peer := newConn(t, readChunk)
		send(t, peer, ping+getk)
		small := lim
		small.queryLimit = int64(len(ping+getk)) - 1
		if r := fill(c, small); !r.overLimit || r.batch != nil || c.outstanding != 0 {
			t.Fatalf("%+v, outstanding %d; want over the limit, nothing parsed", r, c.outstanding)
		}
	})
	t.Run("read again", func(t *testing.T) {
		c, peer := newConn(t, len(ping))
		send(t, peer, ping+ping)
		if r := fill(c, lim); !r.again || r.batch == nil || cmds(r.batch) != "PING" {
			t.Fatalf("%+v; want one PING and read again", r)
		}
	})
	t.Run("end of file", func(t *testing.T) {
		c, peer := newConn(t, readChunk)
		unix.Close(peer)
		if r := fill(c, lim); !r.abort || r.batch != nil {
			t.Fatalf("%+v; want abort", r)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		const conns, requests = 4, 200
		cs := make([]*aeConn, conns)
		for i := range cs {
			c, peer := newConn(t, 256)
			cs[i] = c
			var w strings.Builder
			for j := 0; j < requests; j++ {
				fmt.Fprintf(&w, "*2\r\n$4\r\nECHO\r\n$%d\r\n%d\r\n", len(strconv.Itoa(j)), j)
			}
			send(t, peer, w.String())
		}
		got := make([][]string, conns)
		var wg sync.WaitGroup
		for i, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for len(got[i]) < requests {
					r := fill(c, lim)
					if r.abort || r.overLimit || r.perr != "" || (r.batch == nil && !r.again) {
						t.Errorf("conn %d after %d requests: %+v", i, len(got[i]), r)
						return
					}
					if r.batch != nil {
						for _, cmd := range r.batch.cmds {
							got[i] = append(got[i], string(cmd[1]))
						}
						// What the batch's ack does to the connection.
						c.outstanding--
						c.inflight -= r.batch.bytes
						r.batch.cmds, r.batch.args, r.batch.bytes = r.batch.cmds[:0], r.batch.args[:0], 0
						c.free = append(c.free, r.batch)
					}
				}
			}()
		}
		wg.Wait()
		for i := range got {
			for j, s := range got[i] {
				if s != strconv.Itoa(j) {
					t.Fatalf("conn %d request %d: %q", i, j, s)
				}
			}
		}
	})
}

// TestAELoopIOThreads: with I/O workers reading and writing every round
// (mode t), clients that pipeline at once, some with values larger than a
// read or a write takes (split requests, partial writes, EPOLLOUT), each
// get every reply, in order, and the keys hold what was written; the
// rounds were fanned out to the workers, reads and writes.
func TestAELoopIOThreads(t *testing.T) {
	s := runAE(t, "t")
	const clients, rounds, pipeline = 8, 20, 16
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		nc, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(60 * time.Second))
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := bufio.NewReader(nc)
			for r := 0; r < rounds; r++ {
				var w resp.Writer
				var want []string
				for j := 0; j < pipeline; j++ {
					key := fmt.Sprintf("c%d:%d", i, j)
					size := 1 + (i*31+r*7+j)%97
					if (i+r+j)%23 == 0 {
						size = 200_000 // more than a read or a write
					}
					val := strings.Repeat(string(rune('a'+(i+r+j)%26)), size)
					w.Array(3)
					w.BulkString("SET")
					w.BulkString(key)
					w.BulkString(val)
					want = append(want, "+OK\r\n")
					w.Array(2)
					w.BulkString("GET")
					w.BulkString(key)
					want = append(want, "$"+strconv.Itoa(size)+"\r\n"+val+"\r\n")
					w.Array(2)
					w.BulkString("INCR")
					w.BulkString(fmt.Sprintf("n%d", i))
					want = append(want, ":"+strconv.Itoa(r*pipeline+j+1)+"\r\n")
				}
				// Written in two parts, the first ending inside a request.
				cut := len(w.B)/2 + 3
				go func() {
					nc.Write(w.B[:cut])
					time.Sleep(time.Millisecond)
					nc.Write(w.B[cut:])
				}()
				for k, wt := range want {
					got, err := resp.ReadReply(br, nil)
					if err != nil {
						errs <- fmt.Errorf("client %d round %d reply %d: %v", i, r, k, err)
						return
					}
					if string(got) != wt {
						errs <- fmt.Errorf("client %d round %d reply %d: %.60q, want %.60q", i, r, k, got, wt)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var reads, writes int
	s.Do(func(*engine.Engine) { reads, writes = s.ae.io.fanReads, s.ae.io.fanWrites })
	if reads == 0 || writes == 0 {
		t.Errorf("fanned out %d reads and %d writes, want both > 0", reads, writes)
	}
}

// TestAELoopIOThreadsConfig: io-threads sets the loop's workers (the
// loop's thread counts as one, 1 is none), and INFO's io_threads_active
// says whether they wrote the last round's replies: below 2 outputs a
// thread they do not.
func TestAELoopIOThreadsConfig(t *testing.T) {
	t.Setenv("LOCKKV_AELOOP", "a")
	t.Setenv("LOCKKV_AELOOP_THREADS", "") // the setting decides here
	t.Setenv("LOCKKV_AELOOP_FANOUT", "")
	for _, n := range []int{1, 3} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			ecfg := config.NewConfig()
			ecfg.IOThreads = n
			ecfg.LogLevel = new(slog.LevelVar)
			s := runWith(t, Config{Engine: ecfg})
			if n == 1 {
				if s.ae.io != nil {
					t.Fatal("io-threads 1, but the loop has I/O workers")
				}
			} else if s.ae.io == nil || len(s.ae.io.workers) != n-1 || s.ae.io.fanMin != 2*n {
				t.Fatalf("io-threads %d: %+v, want %d workers used from %d outputs", n, s.ae.io, n-1, 2*n)
			}
			c := aeDial(t, s)
			if got := c.do("INFO", "server"); !strings.Contains(got, "\r\nio_threads_active:0\r\n") {
				t.Errorf("one client: INFO says the threads are active")
			}
		})
	}
}
