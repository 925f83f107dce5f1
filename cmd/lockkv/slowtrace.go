package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"time"

	"github.com/lockkv/lockkv"
)

// slowTracer is --slow-trace-dir: it keeps a flight recording of Go's
// execution trace (the last few seconds of every goroutine, the GC and
// the scheduler, in memory) and writes it out when a request is slow,
// for `go tool trace`: what the request's goroutines waited for (a
// processor, a GC assist, a lock, a channel, a system call) is in it. It
// logs the slow requests too, at most a line a second: the slowest since
// the last line, with its phases (lockkv.SlowRequest), and their count.
type slowTracer struct {
	dir      string
	log      *slog.Logger
	fr       *trace.FlightRecorder
	interval time.Duration // between two trace files
	maxFiles int           // trace files one process writes at most

	mu      sync.Mutex
	files   int       // written or being written
	last    time.Time // when the last one was begun
	writing bool
	slow    int                // slow requests since the last log line
	worst   lockkv.SlowRequest // the slowest of them
	logged  time.Time
}

const (
	slowTraceInterval = 10 * time.Second
	slowTraceMaxFiles = 20
	// slowTraceWindow is how far back a trace file reaches, at least;
	// slowTraceBytes bounds the recording's memory.
	slowTraceWindow = 2 * time.Second
	slowTraceBytes  = 32 << 20
)

// startSlowTracer starts the flight recorder for dir, which it creates.
func startSlowTracer(dir string, log *slog.Logger) (*slowTracer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: slowTraceWindow, MaxBytes: slowTraceBytes})
	if err := fr.Start(); err != nil {
		return nil, err
	}
	return &slowTracer{dir: dir, log: log, fr: fr, interval: slowTraceInterval, maxFiles: slowTraceMaxFiles}, nil
}

// observe is lockkv.Config.OnSlowRequest: it logs r (or counts it for
// the next log line) and begins a trace file when the last one is
// interval old and fewer than maxFiles were written.
func (t *slowTracer) observe(r lockkv.SlowRequest) {
	now := time.Now()
	t.mu.Lock()
	t.slow++
	if r.Took > t.worst.Took {
		t.worst = r
	}
	logNow := now.Sub(t.logged) >= time.Second
	var n int
	var w lockkv.SlowRequest
	if logNow {
		n, w, t.slow, t.worst, t.logged = t.slow, t.worst, 0, lockkv.SlowRequest{}, now
	}
	write := !t.writing && t.files < t.maxFiles && (t.files == 0 || now.Sub(t.last) >= t.interval)
	var path string
	if write {
		t.writing, t.last = true, now
		t.files++
		path = filepath.Join(t.dir, fmt.Sprintf("lockkv-slow-%s-%dms.trace",
			now.UTC().Format("20060102T150405.000"), r.Took.Milliseconds()))
		if t.files == t.maxFiles {
			defer t.log.Warn("slow request traces: the last one this process writes", "files", t.files)
		}
	}
	t.mu.Unlock()
	if logNow {
		t.log.Warn("slow request", "took", w.Took, "read", w.Read, "queued", w.Queued, "run", w.Run, "reply", w.Reply,
			"commands", w.Commands, "client", w.Client, "slow_requests", n)
	}
	if write {
		go t.write(path)
	}
}

// write writes the recording to path (one write at a time).
func (t *slowTracer) write(path string) {
	defer func() {
		t.mu.Lock()
		t.writing = false
		t.mu.Unlock()
	}()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.log.Error("slow request trace not written", "err", err)
		return
	}
	_, err = t.fr.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.log.Error("slow request trace not written", "path", path, "err", err)
		os.Remove(path)
		return
	}
	t.log.Warn("slow request trace written", "path", path)
}

// stop stops the recording.
func (t *slowTracer) stop() { t.fr.Stop() }
