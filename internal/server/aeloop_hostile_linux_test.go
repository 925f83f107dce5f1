//go:build linux

package server

import (
	"fmt"
	"io"
	"math/rand"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/internal/testutil"
)

// Hostile and dying clients on the event loop (an adversarial review's
// findings 1-4).

// aeOpen is how many connections the loop holds.
func aeOpen(s *Server) (open int) {
	s.Do(func(*engine.Engine) {
		for _, c := range s.ae.conns {
			if c != nil {
				open++
			}
		}
	})
	return open
}

// TestAELoopProtocolErrorWhileBlocked: a held client (BLPOP) sends a
// malformed request, then, in a later write, a SET. Redis stops at the
// error: the BLPOP's reply, the error, the end, and the SET never runs.
// The loop read a held client on after the error and ran the SET.
func TestAELoopProtocolErrorWhileBlocked(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) { testAELoopProtocolErrorWhileBlocked(t, runAE(t, mode)) })
	}
}

func testAELoopProtocolErrorWhileBlocked(t *testing.T, s *Server) {
	a, b := aeDial(t, s), aeDial(t, s)
	a.send("BLPOP", "list", "0")
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := b.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") {
			return fmt.Errorf("not blocked yet")
		}
		return nil
	})
	if _, err := a.nc.Write([]byte("*x\r\n")); err != nil {
		t.Fatal(err)
	}
	// The loop has read the garbage: the error waits for the BLPOP.
	testutil.Eventually(t, 10*time.Second, func() error {
		var perr bool
		s.Do(func(*engine.Engine) {
			for _, c := range s.ae.conns {
				perr = perr || c != nil && c.perrMsg != ""
			}
		})
		if !perr {
			return fmt.Errorf("no protocol error pending")
		}
		return nil
	})
	a.send("SET", "evil", "1")
	// ... and the SET: no connection has unread bytes.
	testutil.Eventually(t, 10*time.Second, func() error {
		var unread int
		s.Do(func(*engine.Engine) {
			for _, c := range s.ae.conns {
				if c != nil && !c.closed {
					n, _ := unix.IoctlGetInt(c.fd, unix.SIOCINQ)
					unread += n
				}
			}
		})
		if unread > 0 {
			return fmt.Errorf("%d bytes unread", unread)
		}
		return nil
	})
	if got := b.do("RPUSH", "list", "x"); got != ":1\r\n" {
		t.Fatalf("RPUSH: %q", got)
	}
	a.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	rest, err := io.ReadAll(a.br)
	want := "*2\r\n$4\r\nlist\r\n$1\r\nx\r\n-ERR Protocol error: invalid multibulk length\r\n"
	if err != nil || string(rest) != want {
		t.Errorf("blocked client got %q, %v; want %q, then the end", rest, err, want)
	}
	if got := b.do("EXISTS", "evil"); got != ":0\r\n" {
		t.Errorf("a SET sent after a protocol error ran: EXISTS evil = %q", got)
	}
}

// TestAELoopProtocolErrorThenHangup: a held client sends a malformed
// request and disconnects. Nothing after the error is run, but the
// disconnect must still be seen: the client is freed and a later RPUSH's
// element stays in the list.
func TestAELoopProtocolErrorThenHangup(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			a, b := aeDial(t, s), aeDial(t, s)
			a.send("BLPOP", "list", "0")
			testutil.Eventually(t, 10*time.Second, func() error {
				if got := b.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") {
					return fmt.Errorf("not blocked yet")
				}
				return nil
			})
			if _, err := a.nc.Write([]byte("*x\r\n")); err != nil {
				t.Fatal(err)
			}
			a.nc.Close()
			testutil.Eventually(t, 10*time.Second, func() error {
				if got := b.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:0\r\n") {
					return fmt.Errorf("the disconnected client is still blocked")
				}
				return nil
			})
			b.do("RPUSH", "list", "x")
			if got := b.do("LLEN", "list"); got != ":1\r\n" {
				t.Errorf("LLEN %q", got)
			}
		})
	}
}

// TestAELoopKilledNonReader: CLIENT KILL of a client that does not read
// and has megabytes of output pending closes its socket at once and drops
// the output, as Redis's freeClient (the loop kept both while Close
// waited for the output to drain).
func TestAELoopKilledNonReader(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) { testAELoopKilledNonReader(t, runAE(t, mode)) })
	}
}

func testAELoopKilledNonReader(t *testing.T, s *Server) {
	a, b := aeDial(t, s), aeDial(t, s)
	if got := b.do("SET", "big", strings.Repeat("x", 1<<20)); got != "+OK\r\n" {
		t.Fatal(got)
	}
	for i := 0; i < 16; i++ {
		a.send("GET", "big") // never read
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		var pending int
		s.Do(func(*engine.Engine) {
			for _, c := range s.ae.conns {
				if c != nil {
					pending = max(pending, len(c.out))
				}
			}
		})
		if pending < 4<<20 {
			return fmt.Errorf("pending %d", pending)
		}
		return nil
	})
	if got := b.do("CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal"); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL: %q", got)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := aeOpen(s); n != 1 {
			return fmt.Errorf("the loop holds %d connections after CLIENT KILL, want 1", n)
		}
		return nil
	})
	if got := b.do("CLIENT", "LIST"); strings.Count(got, "id=") != 1 {
		t.Fatalf("CLIENT LIST: %q", got)
	}
}

// TestAELoopShutdownWhileBusy: SHUTDOWN NOSAVE while a script is busy, a
// client is blocked and another does not read its output: the server
// stops and every client sees its connection end.
func TestAELoopShutdownWhileBusy(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) { testAELoopShutdownWhileBusy(t, runAE(t, mode)) })
	}
}

func testAELoopShutdownWhileBusy(t *testing.T, s *Server) {
	blocked, nonReader, scripter, killer := aeDial(t, s), aeDial(t, s), aeDial(t, s), aeDial(t, s)
	if got := killer.do("CONFIG", "SET", "busy-reply-threshold", "50"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if got := killer.do("SET", "big", strings.Repeat("x", 1<<20)); got != "+OK\r\n" {
		t.Fatal(got)
	}
	blocked.send("BLPOP", "list", "0")
	for i := 0; i < 16; i++ {
		nonReader.send("GET", "big")
	}
	scripter.send("EVAL", "while true do end", "0")
	awaitBusy(t, killer, "PING")
	killer.send("SHUTDOWN", "NOSAVE")
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop within 10 s of SHUTDOWN NOSAVE")
	}
	for name, c := range map[string]*aeClient{"blocked": blocked, "scripter": scripter, "killer": killer, "nonReader": nonReader} {
		c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.Copy(io.Discard, c.br); err != nil {
			t.Errorf("%s: no end after shutdown: %v", name, err)
		}
	}
}

// TestAELoopChurn: hostile clients connect, pipeline, block, subscribe,
// send garbage and vanish (RST or FIN) at random points; afterwards the
// loop holds no connection but the checker's and the engine no client.
func TestAELoopChurn(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) { testAELoopChurn(t, runAE(t, mode)) })
	}
}

func testAELoopChurn(t *testing.T, s *Server) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for i := 0; i < 150; i++ {
				nc, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Error(err)
					return
				}
				var w resp.Writer
				for j := r.Intn(50); j > 0; j-- {
					switch r.Intn(6) {
					case 0:
						w.Array(3)
						w.BulkString("SET")
						w.BulkString(fmt.Sprint("k", r.Intn(10)))
						w.BulkString(strings.Repeat("v", r.Intn(70000)))
					case 1:
						w.Array(2)
						w.BulkString("GET")
						w.BulkString(fmt.Sprint("k", r.Intn(10)))
					case 2:
						w.Array(3)
						w.BulkString("BLPOP")
						w.BulkString("l")
						w.BulkString("0.05")
					case 3:
						w.Array(2)
						w.BulkString("SUBSCRIBE")
						w.BulkString("ch")
					case 4:
						w.Array(3)
						w.BulkString("PUBLISH")
						w.BulkString("ch")
						w.BulkString("m")
					case 5:
						if r.Intn(10) == 0 {
							w.B = append(w.B, "*x\r\n"...)
						}
					}
				}
				b := w.B
				if len(b) > 0 && r.Intn(2) == 0 {
					b = b[:r.Intn(len(b))] // a partial request
				}
				nc.Write(b)
				switch r.Intn(3) {
				case 0:
					nc.(*net.TCPConn).SetLinger(0) // RST
				case 1:
					nc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
					io.Copy(io.Discard, nc)
				}
				nc.Close()
			}
		}(g)
	}
	wg.Wait()
	c := aeDial(t, s)
	testutil.Eventually(t, 20*time.Second, func() error {
		got := c.do("CLIENT", "LIST")
		if n := strings.Count(got, "id="); n != 1 {
			var st []string
			s.Do(func(e *engine.Engine) {
				for _, ac := range s.ae.conns {
					if ac != nil {
						st = append(st, fmt.Sprintf("fd=%d closing=%v closed=%v held=%v out=%d outstanding=%d skipped=%v unparsed=%v hup=%v inMore=%v perr=%q qbuf=%d", ac.fd, ac.closing, ac.closed, ac.held, len(ac.out), ac.outstanding, ac.skipped, ac.unparsed, ac.hup, ac.inMore, ac.perrMsg, ac.end-ac.start))
					}
				}
			})
			return fmt.Errorf("%d clients: %s\n%s", n, got, strings.Join(st, "\n"))
		}
		if open := aeOpen(s); open != 1 {
			return fmt.Errorf("the loop holds %d connections", open)
		}
		return nil
	})
	if got := c.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:0\r\n") || !strings.Contains(got, "pubsub_clients:0\r\n") && strings.Contains(got, "pubsub_clients") {
		t.Errorf("after churn: %q", got)
	}
}

// TestAELoopHangupWithPartialRequest: a client sends part of a request
// (up to 69 KB, so more than one read's 16 KiB), maybe after some
// commands, and closes (FIN or RST). Edge-triggered epoll reports the
// hang-up once, with the data: the loop must read on until the read that
// returns the end, and drop the connection.
func TestAELoopHangupWithPartialRequest(t *testing.T) {
	for _, mode := range []string{"a", "t"} {
		t.Run(mode, func(t *testing.T) { testAELoopHangupWithPartialRequest(t, runAE(t, mode)) })
	}
}

func testAELoopHangupWithPartialRequest(t *testing.T, s *Server) {
	for _, n := range []int{100, 16000, 16384, 20000, 30000, 69000} {
		for _, rst := range []bool{false, true} {
			for _, pre := range []int{0, 1, 40} {
				nc, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Fatal(err)
				}
				msg := strings.Repeat("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", pre) + "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$70000\r\n" + strings.Repeat("v", n)
				nc.Write([]byte(msg))
				if rst {
					nc.(*net.TCPConn).SetLinger(0)
				}
				nc.Close()
				err = testutil.Poll(5*time.Second, func() error {
					if open := aeOpen(s); open != 0 {
						return fmt.Errorf("%d connections open", open)
					}
					return nil
				})
				if err != nil {
					t.Errorf("n=%d rst=%v pre=%d: connection kept: %v", n, rst, pre, err)
					s.Do(func(*engine.Engine) {
						for _, ac := range s.ae.conns {
							if ac != nil {
								ac.Abort()
							}
						}
					})
				}
			}
		}
	}
}

// TestAELoopHangupWhileBlocked: a client blocks in BLPOP, sends more
// than one read's 16 KiB of a request behind it and disconnects while the
// loop is busy, so that the data and the FIN are read in one edge. The
// loop must see the disconnect and free the client: otherwise the next
// RPUSH is acknowledged and its element popped into a dead socket. Redis
// (and the goroutines' path) frees the client and the element stays.
func TestAELoopHangupWhileBlocked(t *testing.T) {
	for _, mode := range append(aeLoopModes, "off") {
		t.Run(mode, func(t *testing.T) {
			var s *Server
			if mode == "off" {
				t.Setenv("LOCKKV_AELOOP", mode)
				s = RunT(t)
			} else {
				s = runAE(t, mode)
			}
			b := aeDial(t, s)
			nc, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.Write([]byte("*3\r\n$5\r\nBLPOP\r\n$4\r\nlist\r\n$1\r\n0\r\n"))
			testutil.Eventually(t, 10*time.Second, func() error {
				if got := b.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") {
					return fmt.Errorf("not blocked yet")
				}
				return nil
			})
			// Hold the loop (the command goroutine off the loop) so
			// that the bytes and the FIN are all queued when it next
			// reads.
			entered, held := make(chan struct{}), make(chan struct{})
			go s.Do(func(*engine.Engine) { close(entered); <-held })
			<-entered
			nc.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$70000\r\n" + strings.Repeat("v", 20000)))
			nc.Close()
			close(held)
			testutil.Eventually(t, 10*time.Second, func() error {
				if got := b.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:0\r\n") {
					return fmt.Errorf("the disconnected client is still blocked")
				}
				return nil
			})
			if got := b.do("RPUSH", "list", "acked"); got != ":1\r\n" {
				t.Errorf("RPUSH: %q", got)
			}
			if got := b.do("LLEN", "list"); got != ":1\r\n" {
				t.Errorf("an acknowledged RPUSH's element went to a disconnected client: LLEN %q", got)
			}
		})
	}
}

// TestAELoopUnauthQueryBuffer: before AUTH one command runs per batch. A
// client that pipelines unauthenticated commands (not reading the
// -NOAUTH replies) must not make the loop read a chunk per command it
// parses: its query buffer would grow towards client-query-buffer-limit
// (1 GB) without authenticating. The buffer is read only when it holds
// no complete request, as Redis does (the goroutines' path reads into a
// fixed 16 KiB buffer; its QueryBuffer reports that buffer, so the test
// runs on the loop only).
func TestAELoopUnauthQueryBuffer(t *testing.T) {
	for _, mode := range aeLoopModes {
		t.Run(mode, func(t *testing.T) {
			s := runAE(t, mode)
			admin := aeDial(t, s)
			if got := admin.do("CONFIG", "SET", "requirepass", "secret"); got != "+OK\r\n" {
				t.Fatal(got)
			}
			nc, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			ping := []byte(strings.Repeat("PING\r\n", 1<<20/6))
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				for i := 0; i < 2; i++ {
					if _, err := nc.Write(ping); err != nil {
						return
					}
				}
			}()
			// Until everything sent was parsed: the largest query buffer.
			var maxUsed int64
			done := false
			testutil.Eventually(t, 60*time.Second, func() error {
				select {
				case <-wrote:
					done = true
				default:
				}
				var used int64 = -1
				s.Do(func(e *engine.Engine) {
					for _, c := range e.Clients() {
						if c.Conn != nil && c.Conn.RemoteAddr() == nc.LocalAddr().String() {
							used, _ = c.Conn.QueryBuffer()
						}
					}
				})
				maxUsed = max(maxUsed, used)
				if !done || used != 0 {
					return fmt.Errorf("query buffer %d, sent all: %v", used, done)
				}
				return nil
			})
			t.Logf("largest query buffer of the unauthenticated client: %d bytes", maxUsed)
			if maxUsed > 256<<10 {
				t.Errorf("an unauthenticated client's query buffer reached %d bytes", maxUsed)
			}
		})
	}
}
