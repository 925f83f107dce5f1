package replication

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// jsonLog is a JSON slog logger filtered by level, and its lines.
type jsonLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	level slog.LevelVar
}

func (j *jsonLog) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.buf.Write(p)
}

func (j *jsonLog) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(j, &slog.HandlerOptions{Level: &j.level}))
}

// records parses every line; a line that is not one JSON object fails.
func (j *jsonLog) records(t *testing.T) []map[string]any {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(j.buf.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is no JSON object: %v\n%s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// Raft's lines become one record each: its level (calibrated), its
// message, its key-value pairs as attributes, no second time or level.
func TestRaftLogger(t *testing.T) {
	var j jsonLog
	var events []string
	l := newRaftLogger(j.logger(), func(msg string) { events = append(events, msg) })
	peer := raft.Server{Suffrage: raft.Voter, ID: "n3", Address: "127.0.0.1:7103"}
	l.Info("initial configuration", "index", 1, "servers", []raft.Server{peer})
	l.Named("net").Error("failed to accept connection", "error", errors.New(`dial "x": refused`))
	l.With("snapshot-id", "1-2-3").Info("starting snapshot up to", "index", uint64(42))
	l.Error("failed to heartbeat to", "peer", peer.Address, "backoff time", 10*time.Millisecond, "error", errors.New("refused"))
	l.Warn(quorumLostMsg)
	l.Warn("previous log term mis-match", "ours", 1, "remote", 2)
	l.Trace("a trace line")
	l.Error("failed to appendEntries to", "peer", peer, "error", errors.New("dial: x "+refusedTag))
	l.Info("odd", "key-only")
	l.Info("fmt", "v", hclog.Fmt("%d-%s", 7, "x"))
	l.Warn("rejecting vote request since our last term is greater", "candidate", peer.Address, "last-term", 2, "last-candidate-term", 1)

	recs := j.records(t)
	want := []struct {
		level, msg string
		attrs      map[string]any
	}{
		{"INFO", "initial configuration", map[string]any{"source": "raft", "index": float64(1), "servers": "[{Suffrage:Voter ID:n3 Address:127.0.0.1:7103}]"}},
		{"ERROR", "failed to accept connection", map[string]any{"source": "raft.net", "error": `dial "x": refused`}},
		{"INFO", "starting snapshot up to", map[string]any{"snapshot-id": "1-2-3", "index": float64(42)}},
		{"WARN", "previous log term mis-match", map[string]any{"ours": float64(1)}},
		{"INFO", "odd", map[string]any{"EXTRA_VALUE_AT_END": "key-only"}},
		{"INFO", "fmt", map[string]any{"v": "7-x"}},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %v", len(recs), len(want), recs)
	}
	for i, w := range want {
		r := recs[i]
		if r["level"] != w.level || r["msg"] != w.msg {
			t.Errorf("record %d: %v %v, want %s %s", i, r["level"], r["msg"], w.level, w.msg)
		}
		for k, v := range w.attrs {
			if r[k] != v {
				t.Errorf("record %d (%s): %s = %#v, want %#v", i, w.msg, k, r[k], v)
			}
		}
	}
	if len(events) != 1 || events[0] != quorumLostMsg {
		t.Errorf("events %q, want the quorum loss once", events)
	}

	// At debug the per-retry lines show, with their attributes; trace
	// never does.
	j.buf.Reset()
	j.level.Set(slog.LevelDebug)
	if !l.IsDebug() || l.IsTrace() || l.GetLevel() != hclog.Debug {
		t.Errorf("at debug: IsDebug %v IsTrace %v GetLevel %v", l.IsDebug(), l.IsTrace(), l.GetLevel())
	}
	l.Error("failed to heartbeat to", "peer", peer.Address, "backoff time", 10*time.Millisecond, "error", errors.New("refused"))
	l.Trace("a trace line")
	recs = j.records(t)
	if len(recs) != 1 || recs[0]["level"] != "DEBUG" || recs[0]["backoff_time"] != "10ms" || recs[0]["peer"] != "127.0.0.1:7103" {
		t.Errorf("at debug: %v", recs)
	}
	j.level.Set(slog.LevelWarn)
	if l.IsInfo() || !l.IsWarn() || l.GetLevel() != hclog.Warn {
		t.Errorf("at warn: IsInfo %v GetLevel %v", l.IsInfo(), l.GetLevel())
	}
}

// Every message raftDebug names is one Raft logs: a message reworded by
// an upgrade would otherwise come back at Raft's own level unnoticed.
func TestRaftDebugMessagesExist(t *testing.T) {
	files, err := filepath.Glob("../third_party/hashicorp/raft/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("raft sources: %v %v", files, err)
	}
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for msg := range raftDebug {
		if !strings.Contains(src.String(), strconv.Quote(msg)) {
			t.Errorf("Raft logs no %q", msg)
		}
	}
}

// fakeTransport fails RPCs to the peers in down.
type fakeTransport struct {
	raft.Transport
	mu   sync.Mutex
	down map[raft.ServerID]bool
}

func (f *fakeTransport) AppendEntries(id raft.ServerID, _ raft.ServerAddress, _ *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down[id] {
		return errors.New("dial tcp: connection refused")
	}
	resp.LastLog = 7
	return nil
}

// A peer is logged unreachable once, after its RPCs failed for the
// window, and reachable once when it answers again; a failure or two
// within the window says nothing.
func TestPeerReachability(t *testing.T) {
	var j jsonLog
	ft := &fakeTransport{down: map[raft.ServerID]bool{}}
	window := 150 * time.Millisecond
	pt, _ := trackProgress(ft, j.logger(), func() time.Duration { return window })
	send := func(id raft.ServerID) {
		pt.AppendEntries(id, raft.ServerAddress(id+":1"), &raft.AppendEntriesRequest{}, &raft.AppendEntriesResponse{})
	}
	msgs := func() []string {
		var out []string
		for _, r := range j.records(t) {
			out = append(out, r["level"].(string)+" "+r["msg"].(string)+" "+r["peer"].(string))
		}
		return out
	}
	send("n2")
	ft.down["n2"] = true
	send("n2") // a dropped connection
	ft.down["n2"] = false
	send("n2")
	if m := msgs(); len(m) != 0 {
		t.Fatalf("a single failure logged %q", m)
	}

	ft.down["n2"] = true
	deadline := time.Now().Add(4 * window)
	for time.Now().Before(deadline) {
		send("n2")
		send("n3")
		time.Sleep(10 * time.Millisecond)
	}
	ft.down["n2"] = false
	for i := 0; i < 5; i++ {
		send("n2")
	}
	want := []string{"WARN peer unreachable n2", "INFO peer reachable n2"}
	if m := msgs(); strings.Join(m, "|") != strings.Join(want, "|") {
		t.Fatalf("logged %q, want %q", m, want)
	}
	r := j.records(t)
	if r[0]["err"] != "dial tcp: connection refused" || r[0]["addr"] != "n2:1" {
		t.Errorf("unreachable record %v", r[0])
	}
	if d, err := time.ParseDuration(r[0]["failing_for"].(string)); err != nil || d < window {
		t.Errorf("failing_for %v (%v), want at least %v", r[0]["failing_for"], err, window)
	}
	if p := pt.progress("n2"); p.lastLog != 7 || p.contact.IsZero() {
		t.Errorf("progress %+v", p)
	}
}

// In text, a Raft line is the node's own line: one time, one level, its
// values unquoted unless they need it.
func TestRaftLoggerText(t *testing.T) {
	var b bytes.Buffer
	l := newRaftLogger(slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), nil)
	l.Warn("failed to contact", "server-id", "n2", "time", 1500*time.Millisecond)
	if line := b.String(); strings.Count(line, " time=") != 0 || !strings.HasSuffix(line, ` level=DEBUG msg="failed to contact" source=raft server-id=n2 raft_time=1.5s`+"\n") {
		t.Fatalf("%q", line)
	}
	b.Reset()
	l.Info("starting snapshot up to", "index", 12)
	if line := b.String(); strings.Count(line, "time=") != 1 || !strings.HasSuffix(line, ` level=INFO msg="starting snapshot up to" source=raft index=12`+"\n") || strings.Contains(line, `\"`) {
		t.Fatalf("%q", line)
	}
}
