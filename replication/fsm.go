package replication

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/host"
)

// fsm is the node seen as Raft's state machine. Every method hands its work
// to the command goroutine and waits, so the engine is only ever touched
// there and an entry is applied between two client commands, never during
// one.
type fsm Node

var _ raft.BatchingFSM = (*fsm)(nil)

// Apply applies one committed entry.
func (f *fsm) Apply(l *raft.Log) interface{} {
	return f.ApplyBatch([]*raft.Log{l})[0]
}

// ApplyBatch applies committed entries in one trip to the command
// goroutine.
func (f *fsm) ApplyBatch(logs []*raft.Log) []interface{} {
	n := (*Node)(f)
	start := time.Now()
	defer func() {
		n.metrics.Apply.Observe(since(start))
		n.metrics.ApplyEntries.Add(uint64(len(logs)))
	}()
	out := make([]interface{}, len(logs))
	entries := make([]*Entry, len(logs))
	for i, l := range logs {
		if l.Type != raft.LogCommand {
			continue
		}
		en, err := decodeEntry(l.Data)
		if err != nil {
			// Every node refuses it the same way; never silently.
			n.log.Error("undecodable log entry skipped", "index", l.Index, "err", err)
			out[i] = err
			continue
		}
		entries[i] = en
		if err := n.adoptClusterID(en.ClusterID); err != nil {
			n.log.Warn("cluster ID entry ignored", "index", l.Index, "err", err)
		}
		for last := n.lastTime.Load(); en.Time > last; last = n.lastTime.Load() {
			if n.lastTime.CompareAndSwap(last, en.Time) {
				break
			}
		}
	}
	ran := n.run(func(e *engine.Engine) {
		for i, en := range entries {
			if en == nil {
				continue
			}
			e.ApplyEntry(logs[i].Index, en.Time, en.Seed, en.Nodes, en.Ops)
		}
	})
	if ran && len(logs) > 0 {
		n.fsmApplied.Store(logs[len(logs)-1].Index)
	}
	return out
}

// appliedIndex is the index of the last entry this node's keyspace
// reflects: what Status, the member list and the progress reports call
// applied. Raft's AppliedIndex is not that: Raft counts an entry applied
// once it handed it to the FSM's queue, which on a loaded node runs
// many batches ahead of the command goroutine (a follower still applying
// a long script reports the leader's index). Entries the FSM never sees
// (a new term's no-op, barriers) change nothing: they count as applied
// once everything before them is, and so do entries compacted away (a
// snapshot this node took or restored holds them).
func (n *Node) appliedIndex() uint64 {
	queued := n.raft.AppliedIndex()
	done := n.fsmApplied.Load()
	if done >= queued {
		return queued
	}
	first, err := n.logs.FirstIndex()
	if err != nil {
		return done
	}
	// Usually the first entry looked at is a command; the scan is bounded
	// all the same (it then answers less than it could, never more).
	start := max(done+1, first)
	for i := start; i <= queued; i++ {
		var l raft.Log
		err := n.logs.GetLog(i, &l)
		switch {
		case errors.Is(err, raft.ErrLogNotFound):
			// Removed by a snapshot's installation: the snapshot holds it.
		case err != nil:
			return i - 1
		case l.Type == raft.LogCommand || l.Type == raft.LogConfiguration:
			return i - 1 // queued, not applied yet
		}
		if i-start >= 256 {
			return i
		}
	}
	return queued
}

// snapshotMeta is what the node stores with the engine's snapshot:
// Members is the engine's member registry (kept here, where it was when
// the registry was the node's, so snapshots keep their format).
type snapshotMeta struct {
	Members   map[string]string `json:"members"`
	LastTime  int64             `json:"last_time"`
	ClusterID string            `json:"cluster_id,omitempty"` // hex
	// AppliedIndex is the engine's last applied entry (SAVE reports it).
	AppliedIndex uint64 `json:"applied_index,omitempty"`
}

// Snapshot captures the engine on the command goroutine; Persist streams
// it while commands go on.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	n := (*Node)(f)
	var snap *engine.Snapshot
	var err error
	ok := n.run(func(e *engine.Engine) {
		var meta []byte
		meta, err = json.Marshal(snapshotMeta{Members: e.Members(), LastTime: e.LastEntryTime(), ClusterID: n.ClusterID(), AppliedIndex: e.AppliedIndex()})
		if err == nil {
			snap = e.Snapshot(meta)
		}
	})
	if !ok {
		return nil, raft.ErrRaftShutdown
	}
	if err != nil {
		return nil, err
	}
	return fsmSnapshot{snap, n.metrics}, nil
}

// Restore replaces the engine's state with a snapshot's.
func (f *fsm) Restore(rc io.ReadCloser) error {
	n := (*Node)(f)
	defer rc.Close()
	n.hasState.Store(true)
	var err error
	ok := n.run(func(e *engine.Engine) {
		var meta []byte
		meta, err = e.Restore(rc)
		if err != nil {
			return
		}
		var m snapshotMeta
		if len(meta) > 0 {
			if err = json.Unmarshal(meta, &m); err != nil {
				return
			}
		}
		var id []byte
		if id, err = hex.DecodeString(m.ClusterID); err == nil && len(id) != 0 && len(id) != idSize {
			err = fmt.Errorf("replication: snapshot with a malformed cluster ID %q", m.ClusterID)
		}
		if err == nil {
			// A snapshot of another cluster cannot get here (the
			// handshake refuses its leader); were it to, the engine
			// already holds its state, and the error stops Raft from
			// taking it as installed.
			err = n.adoptClusterID(id)
		}
		if err != nil {
			return
		}
		e.SetMembers(m.Members)
		e.SetLastEntryTime(m.LastTime)
		e.SetAppliedIndex(m.AppliedIndex)
		n.fsmApplied.Store(m.AppliedIndex)
	})
	if !ok {
		return raft.ErrRaftShutdown
	}
	return err
}

type fsmSnapshot struct {
	s *engine.Snapshot
	m *host.RaftMetrics
}

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	start := time.Now()
	cs := &countingSink{Writer: sink}
	if _, err := s.s.WriteTo(cs); err != nil {
		sink.Cancel()
		return err
	}
	if err := sink.Close(); err != nil {
		return err
	}
	s.m.SnapshotPersist.Observe(since(start))
	s.m.SnapshotBytes.Store(cs.n)
	return nil
}

func (s fsmSnapshot) Release() {}
