package replication

import (
	"encoding/binary"
	"time"

	"github.com/hashicorp/raft"
)

// Replication lag, as INFO replication's lag_ms and /metrics report it:
// how old the oldest committed write is that a node has not applied yet,
// by the leader's clock (every entry carries the leader's time stamp);
// 0 for a node that has applied everything committed. It is not the time
// since the node was last heard from (last_contact_ms says that): a
// caught-up follower of an idle cluster lags 0 ms however rarely it is
// heard from, and one that stopped applying lags more every millisecond
// while writes go on.
//
// The leader computes it for every member from the applied index each
// follower last reported (RAFT.NODE ACK, every 10 ms while it changes),
// so a follower keeping up shows a few ms: its report's age. A follower
// computes it for itself against the commit index it last heard of; the
// other members' progress only the leader knows.

// lagScan bounds the entries looked at for a time stamp: those that carry
// none (Raft's own configuration and no-op entries) are skipped.
const lagScan = 64

// lagMs is the lag of a node that applied up to applied, against commit,
// at now (Unix ms); -1 when the log no longer holds what it lacks (a
// snapshot will bring it) and its entries carry no time.
func (n *Node) lagMs(applied, commit uint64, now int64) int64 {
	if applied >= commit {
		return 0
	}
	t, ok := n.entryTime(applied+1, commit)
	if !ok {
		return -1
	}
	return max(now-t, 0)
}

// entryTime is the time stamp of the first command entry in [from, to].
// Entries compacted away count as the oldest entry still held.
func (n *Node) entryTime(from, to uint64) (int64, bool) {
	if n.logs == nil {
		return 0, false
	}
	if first, err := n.logs.FirstIndex(); err == nil && first > from {
		from = first
	}
	for i := from; i <= to && i < from+lagScan; i++ {
		var l raft.Log
		if err := n.logs.GetLog(i, &l); err != nil {
			return 0, false
		}
		if l.Type != raft.LogCommand {
			continue
		}
		if t, ok := entryStamp(l.Data); ok {
			return t, true
		}
	}
	return 0, false
}

// entryStamp reads an encoded entry's time stamp (appendEntry's first
// fields) without decoding the rest.
func entryStamp(data []byte) (int64, bool) {
	if len(data) < 2 || data[0] != entryVersion {
		return 0, false
	}
	t, n := binary.Varint(data[1:])
	return t, n > 0
}

// contactMs is how long ago (ms) the node was last heard from: by the
// leader, the follower's last report; by a follower, the leader's last
// RPC; -1 when never.
func contactMs(at time.Time) int64 {
	if at.IsZero() {
		return -1
	}
	return time.Since(at).Milliseconds()
}
