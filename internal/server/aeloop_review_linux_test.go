//go:build linux

package server

// Tests of an adversarial review's lower-severity findings on the
// event loop.

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
	"golang.org/x/sys/unix"
)

// TestAELoopAppliesAfterBusyRequest: a Do (or a Raft apply) that comes
// while a busy script runs from a TLS client's request does not wait for
// the loop's next event or cron. The script's round (serveWhileBusy)
// reads the eventfd that the Do's wake-up wrote, so no wake-up is left:
// the loop must see the apply itself (a review finding). The TLS
// client's request is handed over as conn.serve hands it (submit).
func TestAELoopAppliesAfterBusyRequest(t *testing.T) {
	for _, mode := range []string{"a", "b"} {
		t.Run(mode, func(t *testing.T) { testAELoopAppliesAfterBusyRequest(t, runAE(t, mode)) })
	}
}

func testAELoopAppliesAfterBusyRequest(t *testing.T, s *Server) {
	applied := make(chan struct{})
	// The loop goroutine's: sent, pending (the Do waits), slept (the loop
	// went to wait while it did).
	var sent, pending, slept bool
	s.Do(func(e *engine.Engine) {
		e.Config.LuaTimeLimit = 1 // busy after 1 ms
		serve := s.onBusy
		s.onBusy = func() {
			if !sent {
				// A Do from another goroutine, as Server.run sends it.
				sent, pending = true, true
				s.applies <- request{kind: reqCall, fn: func() { pending = false; close(applied) }}
				s.ae.wake()
			}
			serve() // its accept() reads the eventfd
			e.AbortScript()
		}
		s.ae.beforeSleep = func(work bool) {
			if pending && !work {
				slept = true
			}
		}
	})
	if !s.submit(request{kind: reqCall, fn: func() {
		e := s.eng
		e.Call(e.NewClient(nil), [][]byte{[]byte("EVAL"), []byte("while true do end"), []byte("0")})
	}}) {
		t.Fatal("submit: the server stopped")
	}
	select {
	case <-applied:
	case <-time.After(30 * time.Second):
		t.Fatal("the Do never ran")
	}
	var waited bool
	s.Do(func(*engine.Engine) { waited = slept; s.ae.beforeSleep = nil })
	if waited {
		t.Error("the loop waited for its next event or cron with a Do that came during a TLS client's busy script")
	}
}

// TestAELoopAdoptFails: when the loop cannot duplicate an accepted
// connection's descriptor (EMFILE: the accept took the last one), the
// connection is served on goroutines, as a TLS connection is, instead of
// being dropped: logged, not counted in rejected_connections, and no
// different to its client (requests, replies, a transaction across it
// and a loop connection, CLIENT LIST). The connections after it go to the
// loop again.
func TestAELoopAdoptFails(t *testing.T) {
	var (
		mu    sync.Mutex
		calls int
	)
	dup := dupFD
	dupFD = func(fd uintptr) (int, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n <= 3 {
			return -1, unix.EMFILE
		}
		return dup(fd)
	}
	t.Cleanup(func() { dupFD = dup }) // after the server's Close
	t.Setenv("LOCKKV_AELOOP", "a")
	var logs testutil.LogBuffer
	s := runWith(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var cs []*aeClient
	for i := 0; i < 4; i++ {
		c := aeDial(t, s)
		cs = append(cs, c)
		if got := c.do("PING"); got != "+PONG\r\n" {
			t.Fatalf("connection %d's PING: %q", i, got)
		}
	}
	mu.Lock()
	n := calls
	mu.Unlock()
	if n != 4 {
		t.Fatalf("%d descriptors duplicated, want 4", n)
	}
	if got := cs[0].do("MULTI"); got != "+OK\r\n" {
		t.Fatalf("MULTI: %q", got)
	}
	cs[0].do("SET", "k", "v")
	cs[3].do("SET", "k", "loop")
	if got := cs[0].do("EXEC"); got != "*1\r\n+OK\r\n" {
		t.Fatalf("EXEC on a goroutine-served connection: %q", got)
	}
	if got := cs[3].do("GET", "k"); got != "$1\r\nv\r\n" {
		t.Fatalf("GET from the loop's connection: %q", got)
	}
	if got := cs[1].do("CLIENT", "LIST"); strings.Count(got, "id=") != 4 {
		t.Errorf("CLIENT LIST: %q, want 4 clients", got)
	}
	if n := logs.Count(`msg="event loop could not take a connection, serving it on goroutines"`); n != 3 {
		t.Errorf("%d log lines for the connections served on goroutines, want 3:\n%s", n, logs.String())
	}
	if got := cs[3].do("INFO", "stats"); !strings.Contains(got, "\r\nrejected_connections:0\r\n") {
		t.Errorf("INFO stats: %q, want rejected_connections:0", got)
	}
}

// TestAELoopQueryBufferShrinks: a connection's query buffer grown for a
// large request goes back to readChunk once a pass of the loop's cron
// (shrinkQueryBuffers, once a second) finds it empty and unused by the
// reads since the pass before, as Redis's clientsCron resizes it; a
// buffer the last second's reads used is kept, so that a client sending
// large requests one after another does not allocate each anew
// (a review finding). Seen in CLIENT LIST's qbuf and qbuf-free, and
// the large buffer is garbage then (nothing of the connection keeps it:
// the finished batches pointed into it).
func TestAELoopQueryBufferShrinks(t *testing.T) {
	for _, mode := range []string{"a", "b"} {
		t.Run(mode, func(t *testing.T) { testAELoopQueryBufferShrinks(t, runAE(t, mode)) })
	}
}

func testAELoopQueryBufferShrinks(t *testing.T, s *Server) {
	c, admin := aeDial(t, s), aeDial(t, s)
	id, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(c.do("CLIENT", "ID"), ":"), "\r\n"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	fields := regexp.MustCompile(` qbuf=(\d+) qbuf-free=(\d+) `)
	qbuf := func() (size int) {
		t.Helper()
		m := fields.FindStringSubmatch(admin.do("CLIENT", "LIST", "ID", strconv.FormatInt(id, 10)))
		if m == nil {
			t.Fatal("CLIENT LIST: no qbuf")
		}
		used, _ := strconv.Atoi(m[1])
		free, _ := strconv.Atoi(m[2])
		return used + free
	}
	set := func() {
		t.Helper()
		if got := c.do("SET", "k", strings.Repeat("x", 1<<20)); got != "+OK\r\n" {
			t.Fatalf("SET: %q", got)
		}
	}
	var big weak.Pointer[byte]
	// The passes run by hand first: the cron's are put off.
	s.Do(func(*engine.Engine) { s.ae.nextShrink = 1 << 62 })
	set()
	s.Do(func(*engine.Engine) {
		for _, ac := range s.ae.conns {
			if ac != nil && ac.client != nil && ac.client.ID == id {
				big = weak.Make(&ac.buf[0])
			}
		}
		s.ae.shrinkQueryBuffers()
	})
	if n := qbuf(); n < 1<<20 {
		t.Fatalf("after a 1 MB SET and a pass in the same second, the query buffer holds %d bytes, want it kept", n)
	}
	s.Do(func(*engine.Engine) { s.ae.shrinkQueryBuffers() })
	if n := qbuf(); n > readChunk {
		t.Errorf("after a pass that saw no read, the query buffer holds %d bytes, want at most %d", n, readChunk)
	}
	// The engine's prefetch queue holds the keys of the last pipelines
	// that ran alone (strings into the buffers they came from) until it
	// flushes, at most 64 keys later: flush it.
	s.Do(func(e *engine.Engine) { e.PrefetchFlush() })
	testutil.Eventually(t, 5*time.Second, func() error {
		runtime.GC()
		if big.Value() != nil {
			return errors.New("the large query buffer was not collected")
		}
		return nil
	})

	// The cron's passes, on an idle client.
	s.Do(func(*engine.Engine) { s.ae.nextShrink = 0 })
	set()
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := qbuf(); n > readChunk {
			return fmt.Errorf("the idle client's query buffer holds %d bytes, want at most %d", n, readChunk)
		}
		return nil
	})
}
