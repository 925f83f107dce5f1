package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
)

// logRecords parses a JSON log; a line that is no JSON object fails.
func logRecords(t *testing.T, p *proc) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(p.output(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is no JSON object (%v): %s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// count counts the records with level and msg (and, when set, peer).
func count(recs []map[string]any, level, msg, peer string) int {
	n := 0
	for _, r := range recs {
		if r["level"] == level && r["msg"] == msg && (peer == "" || r["peer"] == peer) {
			n++
		}
	}
	return n
}

// waitRecord waits until p's log has a record for which ok holds.
func waitRecord(t *testing.T, p *proc, d time.Duration, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	var rec map[string]any
	err := testutil.Poll(d, func() error {
		for _, r := range logRecords(t, p) {
			if ok(r) {
				rec = r
				return nil
			}
		}
		return errors.New("not logged")
	})
	if err != nil {
		t.Fatalf("no %s in the log within %v:\n%s", what, d, p.output())
	}
	return rec
}

// do AUTHs with pw, sends one command and returns its reply (in
// testutil.Value's form: "+OK").
func do(t *testing.T, addr string, args ...string) string {
	t.Helper()
	c := testutil.MustDial(t, addr)
	defer c.Close()
	c.MustDo(t, "AUTH", "pw")
	return c.MustDo(t, args...).String()
}

// A 3-node cluster logs, in JSON, one record per event: a healthy start
// has no ERROR or WARN record; a killed follower is one "peer
// unreachable" WARN on the leader however long it stays down, and one
// "peer reachable" INFO once it is back; CONFIG SET loglevel debug shows
// Raft's own debug records (its per-retry lines) and notice hides them
// again.
func TestClusterLogs(t *testing.T) {
	dir := t.TempDir()
	type node struct {
		id, addr, raft string
		args           []string
		p              *proc
	}
	nodes := make([]*node, 3)
	var peers []string
	for i := range nodes {
		n := &node{id: fmt.Sprintf("n%d", i+1), addr: testnet.FreeAddr(t), raft: testnet.FreeAddr(t)}
		nodes[i] = n
		peers = append(peers, n.id+"="+n.raft+"="+n.addr)
	}
	for _, n := range nodes {
		n.args = []string{"--addr", n.addr, "--node-id", n.id, "--raft-addr", n.raft,
			"--data-dir", filepath.Join(dir, n.id), "--bootstrap", "--peers", strings.Join(peers, ","),
			"--raft-heartbeat-timeout", "300ms", "--raft-election-timeout", "300ms",
			"--requirepass", "pw", "--log-format", "json"}
		n.p = startProc(t, nil, n.args...)
	}
	var leader *node
	for _, n := range nodes {
		r := waitRecord(t, n.p, 20*time.Second, "leader", func(r map[string]any) bool {
			return r["msg"] == "leader changed" && r["to"] != ""
		})
		for _, m := range nodes {
			if m.id == r["to"] {
				leader = m
			}
		}
	}
	if leader == nil {
		t.Fatal("the nodes name a leader that is none of them")
	}
	// The leader logs "leadership gained" once its barrier commits, which
	// may come after the others have heard of it.
	waitRecord(t, leader.p, 10*time.Second, "leadership gained", func(r map[string]any) bool {
		return r["level"] == "INFO" && r["msg"] == "leadership gained"
	})
	// Let the start settle (the cluster ID, the client address registry),
	// then look at everything logged.
	waitRecord(t, leader.p, 10*time.Second, "cluster ID", func(r map[string]any) bool { return r["msg"] == "cluster ID learned" })
	time.Sleep(time.Second)
	for _, n := range nodes {
		for _, r := range logRecords(t, n.p) {
			if r["level"] == "ERROR" || r["level"] == "WARN" {
				t.Errorf("%s logged at %s during a healthy start: %v", n.id, r["level"], r)
			}
			if r["time"] == nil || r["level"] == nil || r["msg"] == nil {
				t.Errorf("%s: record without time, level or msg: %v", n.id, r)
			}
		}
	}

	var follower *node
	for _, n := range nodes {
		if n != leader {
			follower = n
			break
		}
	}
	follower.p.cmd.Process.Signal(syscall.SIGKILL)
	follower.p.waitExit(10 * time.Second)
	waitRecord(t, leader.p, 20*time.Second, "peer unreachable", func(r map[string]any) bool {
		return r["msg"] == "peer unreachable" && r["peer"] == follower.id
	})
	// Raft's per-heartbeat failures are DEBUG records: shown once the
	// level is debug, gone again at notice.
	if got := do(t, leader.addr, "CONFIG", "SET", "loglevel", "debug"); got != "+OK" {
		t.Fatalf("CONFIG SET loglevel debug: %s", got)
	}
	waitRecord(t, leader.p, 10*time.Second, "Raft debug record", func(r map[string]any) bool {
		return r["level"] == "DEBUG" && r["source"] == "raft" && r["msg"] == "failed to heartbeat to"
	})
	do(t, leader.addr, "CONFIG", "SET", "loglevel", "notice")
	time.Sleep(time.Second) // a heartbeat retry in flight may still log
	debugBefore := count(logRecords(t, leader.p), "DEBUG", "failed to heartbeat to", "")
	time.Sleep(2 * time.Second) // down for several windows (1 s each) in all
	recs := logRecords(t, leader.p)
	if n := count(recs, "DEBUG", "failed to heartbeat to", ""); n != debugBefore {
		t.Errorf("%d more Raft debug records at notice", n-debugBefore)
	}
	if n := count(recs, "WARN", "peer unreachable", follower.id); n != 1 {
		t.Errorf("%d peer unreachable records for %s, want 1", n, follower.id)
	}

	follower.p = startProc(t, nil, follower.args...)
	waitRecord(t, leader.p, 20*time.Second, "peer reachable", func(r map[string]any) bool {
		return r["msg"] == "peer reachable" && r["peer"] == follower.id
	})
	time.Sleep(2 * time.Second)
	recs = logRecords(t, leader.p)
	if u, r := count(recs, "WARN", "peer unreachable", follower.id), count(recs, "INFO", "peer reachable", follower.id); u != 1 || r != 1 {
		t.Errorf("%d unreachable and %d reachable records for %s, want 1 and 1", u, r, follower.id)
	}
	for _, n := range nodes {
		for _, r := range logRecords(t, n.p) {
			if r["level"] == "ERROR" {
				t.Errorf("%s logged an ERROR: %v", n.id, r)
			}
		}
	}
}
