//go:build linux

package server

// Tests of an adversarial review's lower-severity findings on the
// event loop.

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
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
// connection's descriptor (EMFILE), the connection is dropped as a failed
// accept is: logged, not counted in rejected_connections (Redis logs
// "Accepting client connection: ..." and counts nothing), and the accept
// loop backs off before the next accept (5 ms, doubling), so that running
// out of descriptors neither spins it nor floods the log. The next
// connection it can take is served.
func TestAELoopAdoptFails(t *testing.T) {
	var (
		mu    sync.Mutex
		calls []time.Time
	)
	dup := dupFD
	dupFD = func(fd uintptr) (int, error) {
		mu.Lock()
		calls = append(calls, time.Now())
		n := len(calls)
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
	// Four connections wait in the listen backlog; the first three are
	// dropped.
	var cs []*aeClient
	for i := 0; i < 4; i++ {
		cs = append(cs, aeDial(t, s))
	}
	for i, c := range cs[:3] {
		var ne net.Error
		if rest, err := io.ReadAll(c.br); len(rest) != 0 || errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection %d, whose descriptor was not duplicated: %q %v, want it closed", i, rest, err)
		}
	}
	if got := cs[3].do("PING"); got != "+PONG\r\n" {
		t.Fatalf("the fourth connection's PING: %q", got)
	}
	mu.Lock()
	at := append([]time.Time(nil), calls...)
	mu.Unlock()
	if len(at) != 4 {
		t.Fatalf("%d descriptors duplicated, want 4", len(at))
	}
	// Back-off: at least 5, 10 and 20 ms before the accept after each
	// failure (lower bounds: a loaded machine only makes them longer).
	for i, want := range []time.Duration{5, 10, 20} {
		if d := at[i+1].Sub(at[i]); d < want*time.Millisecond {
			t.Errorf("accept %d came %v after failure %d, want a back-off of at least %v", i+2, d, i+1, want*time.Millisecond)
		}
	}
	if n := logs.Count(`msg="accept failed" err="fcntl: too many open files"`); n != 3 {
		t.Errorf("%d log lines for the dropped connections, want 3:\n%s", n, logs.String())
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
