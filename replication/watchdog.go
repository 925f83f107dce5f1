package replication

import (
	"errors"
	"time"

	"github.com/hashicorp/raft"
)

// A leader whose command goroutine is stuck (DEBUG SLEEP, a slow local
// read or snapshot) applies nothing and answers nobody, yet Raft's own
// goroutines keep sending heartbeats, so the followers never elect
// another leader: the whole cluster waits for it. The watchdog polls
// Config.Stalled and, when this node leads and has been stuck longer than
// an election timeout, hands leadership to the most up-to-date follower
// (raft.LeadershipTransfer), which serves meanwhile. The stuck node goes
// on as a follower, its log kept current by the new leader, and applies
// what it missed when its command goroutine is free again.
//
// Work every node does alike (applying a committed entry: a long script,
// a big DEL) is not counted by Stalled: another leader would be held by
// the same entry.

func (n *Node) watchdog() {
	defer n.wg.Done()
	limit := n.cfg.ElectionTimeout
	tick := time.NewTicker(max(limit/4, 10*time.Millisecond))
	defer tick.Stop()
	var (
		warned    bool      // this stall was logged
		triedAt   time.Time // the last transfer asked for
		failedLog bool      // a failed transfer was logged in this stall
	)
	for {
		select {
		case <-tick.C:
		case <-n.stop:
			return
		}
		stalled := n.cfg.Stalled()
		if stalled <= limit {
			warned, failedLog = false, false
			continue
		}
		if n.raft.State() != raft.Leader || time.Since(triedAt) < limit {
			continue
		}
		if !warned {
			n.log.Warn("command goroutine stalled while leading: handing leadership over", "node", n.cfg.NodeID, "stalled", stalled.Round(time.Millisecond))
			warned = true
		}
		triedAt = time.Now()
		err := n.await(n.raft.LeadershipTransfer())
		if errors.Is(err, errNodeStopped) {
			return
		}
		if err != nil && !failedLog {
			// A cluster of one has nobody to hand over to.
			n.log.Warn("leadership transfer failed", "node", n.cfg.NodeID, "err", err)
			failedLog = true
		}
	}
}
