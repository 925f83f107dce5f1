package replication

import (
	"errors"
	"syscall"
	"time"

	"github.com/hashicorp/raft"
)

// A follower learns that its leader is gone only from silence: Raft's
// heartbeat timer fires at a random moment between one and two heartbeat
// timeouts, and only then checks whether the leader was heard from within
// a heartbeat timeout; a follower that still knows the leader refuses the
// other's (pre-)vote, so an election waits for both survivors' timers. With
// the default 1 s that is about 2 s from a crash to a new leader.
//
// When only the leader's process died (SIGKILL, a crash, an OOM kill) its
// host is up and says so at once: a connection to its Raft address is
// refused. The probe uses that: a follower that has heard nothing from its
// leader for longer than the leader lease dials the leader's Raft address;
// if the connection is refused it lowers Raft's heartbeat and election
// timeouts to the leader lease (the lowest Raft accepts: a leader that
// heard from no quorum for that long has stepped down already), which
// makes Raft check at once and start an election when the leader has been
// silent for that long. The configured timeouts come back as soon as a
// leader is known again (or this node leads), or after two heartbeat
// timeouts without one. A leader whose host is down or cut off refuses
// nothing (the dial times out) and is detected by the timeouts as before;
// a live leader that is merely slow accepts the connection (the probe runs
// the peer handshake, so the leader logs nothing), which the probe closes.

// probeEvery is how often the probe looks at the leader's silence, as a
// fraction of the leader lease.
const probeEvery = 10

func (n *Node) leaderProbe() {
	defer n.wg.Done()
	lease := n.leaderLease()
	tick := time.NewTicker(max(lease/probeEvery, 5*time.Millisecond))
	defer tick.Stop()
	var (
		lowered   bool      // Raft's timeouts are the lease's
		loweredAt time.Time // since when
		probedAt  time.Time // when the leader was last probed
	)
	for {
		select {
		case <-tick.C:
		case <-n.stop:
			return
		}
		r := n.raft
		addr, id := r.LeaderWithID()
		state := r.State()
		if lowered {
			// Back to the configured timeouts once a leader is known, or
			// when none was elected within two heartbeat timeouts (no
			// quorum: elections go on at the configured pace).
			if addr != "" || state == raft.Leader || time.Since(loweredAt) > 2*n.cfg.HeartbeatTimeout {
				if n.setRaftTimeouts(n.cfg.HeartbeatTimeout, n.cfg.ElectionTimeout) {
					lowered = false
					n.log.Info("Raft timeouts back to the configured ones", "node", n.cfg.NodeID, "leader", string(id))
				}
			}
			continue
		}
		if state != raft.Follower || addr == "" || id == raft.ServerID(n.cfg.NodeID) {
			continue
		}
		last := r.LastContact()
		if time.Since(last) <= lease || time.Since(probedAt) < lease {
			continue // heard from lately, or probed lately (a live but silent leader)
		}
		probedAt = time.Now()
		if !n.leaderGone(string(addr), lease) {
			continue
		}
		n.log.Warn("the leader's Raft address refuses connections: electing a new leader without waiting for the heartbeat timeout",
			"node", n.cfg.NodeID, "leader", string(id), "raft", string(addr), "silent", time.Since(last).Round(time.Millisecond))
		lowered, loweredAt = n.setRaftTimeouts(lease, lease), time.Now()
	}
}

// leaderGone dials the leader's Raft address as a peer does (TLS and the
// handshake, so a live leader logs nothing for it) and reports whether
// the connection was refused: no process listens there. A connection that
// opens is closed; any other failure (a timeout, a refused handshake) says
// nothing either way.
func (n *Node) leaderGone(addr string, timeout time.Duration) bool {
	c, _, err := dialRaft(addr, timeout, n.sec, &handshakeAuth{key: n.sec.key, local: n.hello})
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// setRaftTimeouts changes Raft's heartbeat and election timeouts, keeping
// the other reloadable settings.
func (n *Node) setRaftTimeouts(heartbeat, election time.Duration) bool {
	rc := n.raft.ReloadableConfig()
	rc.HeartbeatTimeout, rc.ElectionTimeout = heartbeat, election
	if err := n.raft.ReloadConfig(rc); err != nil {
		n.log.Warn("changing Raft's timeouts failed", "node", n.cfg.NodeID, "err", err)
		return false
	}
	return true
}
