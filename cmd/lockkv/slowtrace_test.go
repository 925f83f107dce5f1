package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testutil"
)

// TestSlowTracer: a slow request is logged with its phases and writes
// an execution trace go tool trace reads; another within the interval
// writes none, and no more than maxFiles are written.
func TestSlowTracer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "traces")
	var logs testutil.LogBuffer
	st, err := startSlowTracer(dir, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.stop()
	st.interval, st.maxFiles = time.Hour, 2
	traces := func() []string {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(dir, "lockkv-slow-*.trace"))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	// settled waits for the trace being written, then counts the files.
	settled := func(want int) {
		t.Helper()
		testutil.Eventually(t, 10*time.Second, func() error {
			st.mu.Lock()
			writing := st.writing
			st.mu.Unlock()
			if n := len(traces()); writing || n != want {
				return fmt.Errorf("%d trace files (writing %v), want %d", n, writing, want)
			}
			return nil
		})
	}
	r := lockkv.SlowRequest{Client: "127.0.0.1:5000", Commands: 16, Took: 25 * time.Millisecond,
		Read: time.Millisecond, Queued: 20 * time.Millisecond, Run: 3 * time.Millisecond, Reply: time.Millisecond}
	st.observe(r)
	settled(1)
	if name := filepath.Base(traces()[0]); !strings.HasSuffix(name, "-25ms.trace") {
		t.Errorf("trace file %s does not name the request's 25ms", name)
	}
	b, err := os.ReadFile(traces()[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Errorf("trace file starts %q, not with a Go execution trace's header", b[:min(len(b), 16)])
	}
	if l := logs.String(); !strings.Contains(l, "slow request") || !strings.Contains(l, "queued=20ms") || !strings.Contains(l, "commands=16") {
		t.Errorf("log %q lacks the request's phases", l)
	}

	// Within the second: counted, and the slowest logged with the
	// count when the next line is due.
	worse := r
	worse.Took, worse.Queued = 40*time.Millisecond, 35*time.Millisecond
	st.observe(worse) // within the interval: no trace file
	settled(1)
	st.mu.Lock()
	st.logged = time.Time{}
	st.mu.Unlock()
	st.observe(r)
	if l := logs.String(); !strings.Contains(l, "took=40ms") || !strings.Contains(l, "slow_requests=2") {
		t.Errorf("log %q lacks the slowest request since the last line and the count", l)
	}
	st.interval = 0
	st.observe(r)
	settled(2)
	st.observe(r) // past maxFiles
	settled(2)
	if !strings.Contains(logs.String(), "the last one this process writes") {
		t.Errorf("log %q does not say the traces stopped", logs.String())
	}
}

// TestSlowTracerBadDir: a directory that cannot be made is an error.
func TestSlowTracerBadDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := startSlowTracer(filepath.Join(file, "traces"), slog.New(slog.DiscardHandler))
	if err == nil {
		st.stop()
		t.Fatal("a directory under a file was accepted")
	}
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Errorf("error %v is not the directory's", err)
	}
}
