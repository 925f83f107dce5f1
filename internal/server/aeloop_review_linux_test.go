//go:build linux

package server

// Tests of the review's lower-severity items (notes/evloop-review.md
// 5-7, EVLOOP.md "Next" 6).

import (
	"errors"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
)

// TestAELoopQueryBufferShrinks: a connection's query buffer grown for a
// large request goes back to readChunk once it is empty, when the
// client sends again (EVLOOP.md, "Next" 6d): CLIENT LIST's qbuf and
// qbuf-free, and the large buffer is garbage then (nothing of the
// connection keeps it: the finished batches pointed into it).
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
	// The largest buffer the connection had (the loop goroutine's).
	var (
		big     weak.Pointer[byte]
		bigSize int
	)
	s.Do(func(*engine.Engine) {
		s.ae.beforeSleep = func() {
			for _, ac := range s.ae.conns {
				if ac != nil && ac.client != nil && ac.client.ID == id && len(ac.buf) > bigSize {
					big, bigSize = weak.Make(&ac.buf[0]), len(ac.buf)
				}
			}
		}
	})
	if got := c.do("SET", "k", strings.Repeat("x", 1<<20)); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	if got := c.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	var size int
	s.Do(func(*engine.Engine) { s.ae.beforeSleep = nil; size = bigSize })
	if size < 1<<20 {
		t.Fatalf("the query buffer held at most %d bytes, want at least 1 MB", size)
	}
	if n := qbuf(); n > readChunk {
		t.Errorf("after the SET and a PING the query buffer holds %d bytes, want at most %d", n, readChunk)
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
}
