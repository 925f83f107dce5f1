package replication

import (
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// The files in testdata were written by cc773e5's code (before the member
// registry moved into the engine): entries-cc773e5.bin holds two log
// entries (length-prefixed, as EncodeEntry wrote them) that register
// members n1..n3, then remove n2 and add n4, with a few writes and a
// SCRIPT LOAD; snapshot-cc773e5.bin is what fsm.Snapshot and Persist
// wrote after applying them at indexes 10 and 11.
const (
	goldenDigest  = "d0e4232d646cf1f0ad6b4ca1d41d6ea3f87ef82139d84029e1d924e5e146af83"
	goldenLast    = 1_700_000_000_200
	goldenApplied = 11
	goldenCluster = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"
)

var goldenMembers = map[string]string{"n1": "10.0.0.1:6379", "n3": "10.0.0.3:6379", "n4": "10.0.0.4:6380"}

// memSink is a raft.SnapshotSink into memory.
type memSink struct{ bytes.Buffer }

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { return nil }
func (s *memSink) Close() error  { return nil }

// goldenNode is a node that is never started, whose runner runs on the
// caller's goroutine, with an in-memory stable store for the cluster ID.
func goldenNode(t *testing.T) (*Node, *engine.Engine) {
	t.Helper()
	var eng *engine.Engine
	n, err := New(Config{NodeID: "n1", RaftAddr: "127.0.0.1:1"}, func(fn func(e *engine.Engine)) bool { fn(eng); return true })
	if err != nil {
		t.Fatal(err)
	}
	n.stable = raft.NewInmemStore()
	if eng, err = newNodeEngine(n, &enginetest.Clock{T: time.UnixMilli(1_700_000_000_000)}); err != nil {
		t.Fatal(err)
	}
	return n, eng
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkGolden checks that n and e hold the state the golden files
// describe.
func checkGolden(t *testing.T, n *Node, e *engine.Engine) {
	t.Helper()
	if got := e.Digest(); got != goldenDigest {
		t.Errorf("digest %s, want %s", got, goldenDigest)
	}
	if got := e.Members(); !maps.Equal(got, goldenMembers) {
		t.Errorf("members %v, want %v", got, goldenMembers)
	}
	if got := e.LastEntryTime(); got != goldenLast {
		t.Errorf("last entry time %d, want %d", got, goldenLast)
	}
	if got := e.AppliedIndex(); got != goldenApplied {
		t.Errorf("applied index %d, want %d", got, goldenApplied)
	}
	if got := n.ClusterID(); got != goldenCluster {
		t.Errorf("cluster ID %q, want %q", got, goldenCluster)
	}
}

// TestSnapshotRestoresPreviousFormat restores a snapshot written by the
// previous code: members, keyspace, entry time, index and cluster ID.
func TestSnapshotRestoresPreviousFormat(t *testing.T) {
	n, e := goldenNode(t)
	if err := (*fsm)(n).Restore(io.NopCloser(bytes.NewReader(readGolden(t, "snapshot-cc773e5.bin")))); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, n, e)
}

// TestSnapshotFormatUnchanged applies the previous code's log entries and
// checks the state they make and the snapshot taken then against the
// previous code's.
func TestSnapshotFormatUnchanged(t *testing.T) {
	n, e := goldenNode(t)
	data := readGolden(t, "entries-cc773e5.bin")
	var logs []*raft.Log
	for len(data) > 0 {
		size, k := binary.Uvarint(data)
		if k <= 0 || uint64(len(data)-k) < size {
			t.Fatal("malformed entries file")
		}
		logs = append(logs, &raft.Log{Index: uint64(10 + len(logs)), Type: raft.LogCommand, Data: data[k : k+int(size)]})
		data = data[k+int(size):]
	}
	for i, r := range (*fsm)(n).ApplyBatch(logs) {
		if r != nil {
			t.Fatalf("entry %d: %v", i, r)
		}
	}
	checkGolden(t, n, e)
	snap, err := (*fsm)(n).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	// The keyspace's order in the file is the dictionaries' (not fixed
	// from run to run): the metadata must be the same bytes, and the
	// snapshot must restore to the same state.
	if got, want := metaOf(t, sink.Bytes()), metaOf(t, readGolden(t, "snapshot-cc773e5.bin")); !bytes.Equal(got, want) {
		t.Errorf("snapshot metadata %s, want %s", got, want)
	}
	n2, e2 := goldenNode(t)
	if err := (*fsm)(n2).Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, n2, e2)
}

// metaOf is the metadata the replication layer stored in snap.
func metaOf(t *testing.T, snap []byte) []byte {
	t.Helper()
	_, e := goldenNode(t)
	meta, err := e.Restore(bytes.NewReader(snap))
	if err != nil {
		t.Fatal(err)
	}
	return meta
}
