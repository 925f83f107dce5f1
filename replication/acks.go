package replication

import (
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
)

// Followers tell the leader how far they are, as a Redis replica sends
// REPLCONF ACK: RAFT.NODE ACK <id> <last log index> <applied index>, every
// ackEvery while something changed and at least once a second. The leader
// uses it for WAIT/WAITAOF and INFO replication's offsets and lag.

const ackEvery = 10 * time.Millisecond

type ack struct {
	match, applied uint64
	at             time.Time
}

// Ack records a follower's progress (command goroutine). A follower this
// leader removed is told so: it stops at once instead of after
// removedGrace (membership.go).
func (n *Node) Ack(id string, match, applied uint64) error {
	if _, ok := n.removedIDs[id]; ok {
		if !slices.ContainsFunc(n.config(), func(s raft.Server) bool { return string(s.ID) == id }) {
			return errRemovedReply
		}
		delete(n.removedIDs, id) // added again since
	}
	if n.acks == nil {
		n.acks = map[string]ack{}
	}
	n.acks[id] = ack{match: match, applied: applied, at: time.Now()}
	return nil
}

func (n *Node) acker() {
	defer n.wg.Done()
	var (
		peer     *peerConn
		lastSent [2]uint64
		sentAt   time.Time
		// leaderless is since when this node has known no leader (as a
		// follower), asked when it last asked the members about it.
		leaderless, asked time.Time
	)
	defer func() {
		if peer != nil {
			peer.Close()
		}
	}()
	tick := time.NewTicker(ackEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-n.stop:
			return
		}
		state := n.raft.State()
		_, id := n.raft.LeaderWithID()
		if state == raft.Shutdown {
			continue
		}
		if state != raftFollower || id == "" {
			now := time.Now()
			if leaderless.IsZero() {
				leaderless = now
			}
			if grace := n.removedGrace(); now.Sub(leaderless) > grace && now.Sub(asked) > grace {
				asked = now
				if n.leaderSaysRemoved() {
					n.removalConfirmed.Store(true)
				}
			}
			continue
		}
		leaderless = time.Time{}
		var addr string
		n.run(func(e *engine.Engine) { addr = n.clientAddr(e, string(id)) })
		if addr == "" {
			continue
		}
		cur := [2]uint64{n.raft.LastIndex(), n.appliedIndex()}
		if peer != nil && cur == lastSent && addr == peer.addr && time.Since(sentAt) < time.Second {
			continue
		}
		if peer != nil && peer.addr != addr {
			peer.Close()
			peer = nil
		}
		if peer == nil {
			var err error
			if peer, err = dialPeer(addr, n.cfg.Password, n.cfg.ClientTLS, time.Second); err != nil {
				continue
			}
		}
		_, err := peer.call(time.Second, []byte("RAFT.NODE"), []byte("ACK"), []byte(n.cfg.NodeID),
			strconv.AppendUint(nil, cur[0], 10), strconv.AppendUint(nil, cur[1], 10))
		if err != nil && err.Error() == "ERR "+errRemovedReply.Error() {
			n.removalConfirmed.Store(true)
		}
		if _, refused := err.(errorReply); err != nil && !refused {
			peer.Close()
			peer = nil
			continue
		}
		lastSent, sentAt = cur, time.Now()
	}
}
