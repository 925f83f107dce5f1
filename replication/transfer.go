package replication

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
)

// Leader transfer: RAFT.NODE TRANSFER on the leader, CLUSTER FAILOVER on
// any member, and a leader's SIGTERM hand leadership over with
// hashicorp/raft's LeadershipTransfer: the leader stops taking new
// entries, brings the target's log up to its own, and sends it TimeoutNow,
// on which the target starts an election at once and wins it (its log is
// the most up to date). Writes pause for that round trip and the election
// (milliseconds), not for an election timeout as after a crash. Raft
// gives up after an election timeout; then the old leader leads on.

// TransferLeadership hands leadership to member id ("" for the most
// up-to-date voter) and calls done once another node leads, or with the
// reason it did not (command goroutine; done runs there too).
func (n *Node) TransferLeadership(id string, done func(error)) {
	var target raft.ServerAddress
	var err error
	if id != "" {
		err = fmt.Errorf("no such node '%s' in the cluster", id)
		for _, s := range n.config() {
			if string(s.ID) == id {
				err, target = nil, s.Address
				if s.Suffrage != raft.Voter {
					err = fmt.Errorf("node '%s' is not a voter: it cannot lead", id)
				}
			}
		}
	}
	// done runs later, from the command goroutine's queue: the caller
	// parked its client and must return first.
	go func() {
		if err == nil && id != n.cfg.NodeID {
			err = n.transfer(id, target)
		}
		n.run(func(e *engine.Engine) {
			if err == nil && n.raft.State() != raft.Leader {
				// Raft answers once this node has left its leader
				// loop; the engine steps down now too, as
				// watchLeadership would on its next look (which may
				// come after the reply), so that OK means this node
				// no longer leads: a ROLE or a write sent after it
				// sees a follower.
				clear(n.acks)
				e.SetLeader(false)
			}
			done(err)
		})
	}()
}

// transfer runs a leadership transfer and waits for its outcome.
func (n *Node) transfer(id string, addr raft.ServerAddress) error {
	start := time.Now()
	var f raft.Future
	if id == "" {
		f = n.raft.LeadershipTransfer()
	} else {
		f = n.raft.LeadershipTransferToServer(raft.ServerID(id), addr)
	}
	if err := n.await(f); err != nil {
		if errors.Is(err, raft.ErrNotLeader) {
			return engine.ErrNoLongerLeads
		}
		return fmt.Errorf("leadership transfer failed: %v", err)
	}
	_, to := n.raft.LeaderWithID()
	n.log.Info("leadership transferred", "node", n.cfg.NodeID, "to", string(to), "took", time.Since(start).String())
	return nil
}

// HandOver transfers leadership before this node stops (SIGTERM): when it
// leads and another voter exists, it waits at most timeout for another
// node to lead. It reports whether leadership moved.
func (n *Node) HandOver(timeout time.Duration) bool {
	if n.raft == nil || n.raft.State() != raft.Leader {
		return false
	}
	others := 0
	for _, s := range n.config() {
		if s.Suffrage == raft.Voter && string(s.ID) != n.cfg.NodeID {
			others++
		}
	}
	if others == 0 {
		return false
	}
	res := make(chan error, 1)
	go func() { res <- n.transfer("", "") }()
	select {
	case err := <-res:
		if err != nil {
			n.log.Warn("could not hand leadership over before stopping", "node", n.cfg.NodeID, "err", err)
			return false
		}
		return true
	case <-time.After(timeout):
		n.log.Warn("could not hand leadership over before stopping", "node", n.cfg.NodeID, "err", "timed out after "+timeout.String())
		return false
	}
}

// RequestLeadership asks the leader to hand leadership to this node
// (CLUSTER FAILOVER on a follower) and calls done with the outcome
// (command goroutine). The leader is asked on its client port with
// RAFT.NODE TRANSFER, as a joining node asks it to add it.
func (n *Node) RequestLeadership(l engine.Node, done func(error)) {
	leader, addr := l.ID, l.ClientAddr
	var err error
	switch {
	case leader == "":
		err = errors.New("no leader is known: the cluster elects one on its own once a quorum answers")
	case leader == n.cfg.NodeID:
		n.TransferLeadership("", done)
		return
	case addr == "":
		err = fmt.Errorf("the client address of leader %s is not known yet", leader)
	}
	if err != nil {
		go n.run(func(*engine.Engine) { done(err) })
		return
	}
	self := n.cfg.NodeID
	wait := 2*n.cfg.ElectionTimeout + 5*time.Second
	go func() {
		err := func() error {
			peer, err := dialPeer(addr, n.cfg.Password, n.cfg.ClientTLS, time.Second)
			if err != nil {
				return fmt.Errorf("cannot reach leader %s at %s: %v", leader, addr, err)
			}
			defer peer.Close()
			_, err = peer.call(wait, []byte("RAFT.NODE"), []byte("TRANSFER"), []byte(self))
			var refused errorReply
			if errors.As(err, &refused) {
				return errors.New(strings.TrimPrefix(string(refused), "ERR "))
			}
			return err
		}()
		n.run(func(*engine.Engine) { done(err) })
	}()
}
