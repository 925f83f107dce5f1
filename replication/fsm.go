package replication

import (
	"errors"
	"io"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/commands"
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
		for last := n.lastTime.Load(); en.Time > last; last = n.lastTime.Load() {
			if n.lastTime.CompareAndSwap(last, en.Time) {
				break
			}
		}
	}
	n.run(func(e *commands.Engine) {
		for i, en := range entries {
			if en == nil {
				continue
			}
			for _, m := range en.Nodes {
				if m.ClientAddr == "" {
					delete(n.members, m.ID)
				} else {
					n.members[m.ID] = m.ClientAddr
				}
			}
			e.ApplyEntry(logs[i].Index, en.Time, en.Seed, en.Ops)
		}
	})
	return out
}

// errNoSnapshots: the engine's snapshot codec is not wired in yet, so Raft
// keeps the whole log (a restarted node replays it) and never compacts.
var errNoSnapshots = errors.New("replication: snapshots are not available yet; the log is kept whole")

// Snapshot is refused until the snapshot codec lands.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) { return nil, errNoSnapshots }

// Restore is refused until the snapshot codec lands.
func (f *fsm) Restore(rc io.ReadCloser) error {
	rc.Close()
	return errNoSnapshots
}
