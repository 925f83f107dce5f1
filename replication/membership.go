package replication

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/lockkv/lockkv/engine"
)

// Membership changes (RAFT.NODE ADD and REMOVE, --join) and what happens
// to a removed node. See DESIGN.md, "Membership".
//
// ADD probes the new node's Raft port first (the handshake tells its node
// ID, cluster ID and whether it has state) and refuses a node that is not
// the one named, belongs to another cluster, or has state of its own;
// then it adds it as a non-voter, waits until it has caught up (its last
// log index, as Raft's own RPCs report it, near the leader's), and only
// then promotes it to voter. A node that stops making progress is removed
// again, so a half-added node never becomes a voter that cannot vote.
// Voter changes are refused when they could leave the cluster without a
// quorum among the members that answer (etcd's strict reconfiguration
// check). One change runs at a time; each runs on a goroutine of its own
// and answers through done on the command goroutine.

const (
	// probeTimeout bounds resolving and handshaking with a node to add.
	probeTimeout = 5 * time.Second
	// maxPromoteLag is how many entries a new node may still lack when it
	// is promoted (one AppendEntries batch): under writes it never holds
	// the leader's very last index.
	maxPromoteLag = 512
	// changeTimeout bounds each Raft configuration change's wait to be
	// taken up by the leader loop.
	changeTimeout = 10 * time.Second
)

// refusedPrefix starts the errors about the node being added itself (its
// identity, its state, its address): retrying cannot help, and --join
// gives up on them (join.go).
const refusedPrefix = "refusing to add "

func refused(id, format string, args ...any) error {
	return fmt.Errorf(refusedPrefix+"%s: "+format, append([]any{id}, args...)...)
}

// errBusy answers a change asked for while another runs.
func (n *Node) errBusy() error {
	return fmt.Errorf("a membership change is in progress (%s); retry when it is over", n.changing)
}

var errNotLeaderNow = errors.New("this node is no longer the leader; retry on the leader")

// AddNode adds a member (RAFT.NODE ADD): a voter once it has caught up,
// or a non-voter. done runs on the command goroutine with the outcome.
// AddNode runs on the command goroutine and does not block.
func (n *Node) AddNode(id, raftAddr, clientAddr string, voter bool, done func(error)) {
	n.change("adding "+id, done, func() error { return n.addNode(id, raftAddr, clientAddr, voter) })
}

// RemoveNode removes a member (RAFT.NODE REMOVE); see AddNode.
func (n *Node) RemoveNode(id string, done func(error)) {
	n.change("removing "+id, done, func() error { return n.removeNode(id) })
}

// change runs fn on a goroutine unless a change is running (command
// goroutine).
func (n *Node) change(what string, done func(error), fn func() error) {
	if n.changing != "" {
		err := n.errBusy()
		go n.run(func(*engine.Engine) { done(err) })
		return
	}
	n.changing = what
	go func() {
		err := fn()
		if err != nil {
			n.log.Warn("membership change failed", "change", what, "err", err)
		}
		n.run(func(*engine.Engine) {
			n.changing = ""
			done(err)
		})
	}()
}

// config is the latest Raft configuration (committed or not).
func (n *Node) config() []raft.Server {
	return n.raft.GetConfiguration().Configuration().Servers
}

func (n *Node) leading() bool { return n.raft.State() == raft.Leader }

// activeWindow is how recently a follower must have answered this leader
// to count as active.
func (n *Node) activeWindow() time.Duration { return max(2*n.cfg.ElectionTimeout, time.Second) }

// active reports whether member id answers this leader (itself always).
func (n *Node) active(id raft.ServerID) bool {
	if string(id) == n.cfg.NodeID {
		return true
	}
	p := n.progress.progress(string(id))
	return !p.contact.IsZero() && time.Since(p.contact) < n.activeWindow()
}

func quorum(voters int) int { return voters/2 + 1 }

// checkAddVoter refuses a new voter when the voters that answer now would
// not be a quorum of the larger cluster. When every voter answers it is
// allowed whatever the size (a one-node cluster growing to two): the new
// node answers too, having caught up (the promotion checks it).
func (n *Node) checkAddVoter(conf []raft.Server) error {
	var voters, up int
	var down []string
	for _, s := range conf {
		if s.Suffrage != raft.Voter {
			continue
		}
		voters++
		if n.active(s.ID) {
			up++
		} else {
			down = append(down, string(s.ID))
		}
	}
	if up >= quorum(voters+1) || len(down) == 0 {
		return nil
	}
	return fmt.Errorf("adding a voter now could leave the cluster without a quorum: %d of its %d voters answer (%s), and %d voters need %d; bring them back, or RAFT.NODE REMOVE them first",
		up, voters, notAnswering(down), voters+1, quorum(voters+1))
}

// checkRemoveVoter refuses removing voter id when the voters left that
// answer would not be a quorum of them. Removing a voter that does not
// answer is allowed when the others are a quorum: that is what removal is
// for.
func (n *Node) checkRemoveVoter(conf []raft.Server, id string) error {
	var left, up int
	var down []string
	for _, s := range conf {
		if s.Suffrage != raft.Voter || string(s.ID) == id {
			continue
		}
		left++
		if n.active(s.ID) {
			up++
		} else {
			down = append(down, string(s.ID))
		}
	}
	if left == 0 {
		return fmt.Errorf("cannot remove %s: it is the cluster's only voter", id)
	}
	if up >= quorum(left) {
		return nil
	}
	return fmt.Errorf("removing %s could leave the cluster without a quorum: %d of the %d voters left answer (%s), and %d need %d; bring them back first",
		id, up, left, notAnswering(down), left, quorum(left))
}

// notAnswering names the voters that do not answer.
func notAnswering(down []string) string {
	if len(down) == 1 {
		return down[0] + " does not"
	}
	return strings.Join(down, ", ") + " do not"
}

// addNode is RAFT.NODE ADD's work (its own goroutine).
func (n *Node) addNode(id, raftAddr, clientAddr string, voter bool) error {
	if !n.leading() {
		return errNotLeaderNow
	}
	conf := n.config()
	var existing *raft.Server
	for i, s := range conf {
		switch {
		case string(s.ID) == id:
			existing = &conf[i]
		case string(s.Address) == raftAddr:
			return refused(id, "Raft address %s is member %s's", raftAddr, s.ID)
		}
	}
	if existing != nil {
		if string(existing.Address) != raftAddr {
			return refused(id, "it is already a member with Raft address %s; RAFT.NODE REMOVE it first to change its address", existing.Address)
		}
		if existing.Suffrage == raft.Voter && !voter {
			return refused(id, "it is already a voter; RAFT.NODE REMOVE it and add it again as a non-voter")
		}
		if existing.Suffrage == raft.Voter || !voter {
			// Asked again (a --join retried): done, with its client
			// address as given now.
			n.registerClientAddr(id, clientAddr)
			return nil
		}
	}
	if err := n.probe(id, raftAddr, existing != nil); err != nil {
		return err
	}
	if voter {
		if err := n.checkAddVoter(conf); err != nil {
			return err
		}
	}
	n.run(func(*engine.Engine) { delete(n.removedIDs, id) }) // added again
	added := false
	since := n.raft.CommitIndex()
	if existing == nil {
		// What a node of this ID said before (removed since) is not
		// what this one will say.
		n.progress.forget(id)
		f := n.raft.AddNonvoter(raft.ServerID(id), raft.ServerAddress(raftAddr), 0, changeTimeout)
		if err := f.Error(); err != nil {
			return fmt.Errorf("adding %s as a non-voter: %w", id, err)
		}
		added, since = true, f.Index()
		n.log.Info("node added as a non-voter", "node", id, "raft", raftAddr)
	}
	n.registerClientAddr(id, clientAddr)
	if !voter {
		return nil
	}
	err := n.promote(id, raftAddr, since)
	if err != nil && added {
		n.undoAdd(id)
		err = fmt.Errorf("%w; it was removed again", err)
	}
	return err
}

// registerClientAddr proposes id's client address for the registry if it
// differs ("" leaves it).
func (n *Node) registerClientAddr(id, clientAddr string) {
	if clientAddr == "" {
		return
	}
	var cur string
	n.run(func(e *engine.Engine) { cur = e.MemberAddr(id) })
	if cur != clientAddr {
		n.proposeMembers(Member{ID: id, ClientAddr: clientAddr})
	}
}

// undoAdd removes a node this change added (best effort: the leadership
// may be gone).
func (n *Node) undoAdd(id string) {
	if err := n.raft.RemoveServer(raft.ServerID(id), 0, changeTimeout).Error(); err != nil {
		n.log.Warn("could not remove the node again after a failed add", "node", id, "err", err)
		return
	}
	n.proposeMembers(Member{ID: id})
}

// probe checks, through the Raft handshake, that raftAddr is node id and
// may join this cluster. member is set when id is already in the
// configuration (its state is then this cluster's).
func (n *Node) probe(id, raftAddr string, member bool) error {
	ours := n.ClusterID()
	if ours == "" {
		return errors.New("this cluster has no ID yet (its first leader has just been elected); retry in a moment")
	}
	if n.cfg.Transport != nil {
		return nil // a test's transport: no handshake to probe with
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	host, _, err := net.SplitHostPort(raftAddr)
	if err != nil {
		return refused(id, "bad Raft address %q: %v", raftAddr, err)
	}
	if _, err := net.DefaultResolver.LookupHost(ctx, host); err != nil {
		return fmt.Errorf("cannot resolve %s's Raft address %s: %v", id, raftAddr, err)
	}
	// The probe says no cluster ID, so a node of another cluster answers
	// (and says which) instead of refusing the handshake.
	auth := &handshakeAuth{key: n.sec.key, local: func() hello {
		return hello{nodeID: n.cfg.NodeID, addr: n.cfg.RaftAdvertise}
	}}
	c, peer, err := dialRaft(raftAddr, probeTimeout, n.sec, auth)
	if err != nil {
		var he *handshakeError
		if errors.As(err, &he) {
			return refused(id, "the handshake with its Raft port %s failed: %v", raftAddr, err)
		}
		return fmt.Errorf("cannot reach %s's Raft port %s: %v", id, raftAddr, err)
	}
	c.Close()
	switch {
	case peer.NodeID != id:
		return refused(id, "the node at %s is %q", raftAddr, peer.NodeID)
	case peer.ClusterID != "" && peer.ClusterID != ours:
		return refused(id, "it belongs to another cluster (its cluster ID %s, this cluster's %s); wipe its data directory to add it to this one", peer.ClusterID, ours)
	case peer.HasState && peer.ClusterID == "" && !member:
		return refused(id, "it has Raft state of its own but no cluster ID (it was bootstrapped, or started alone, as another cluster); wipe its data directory to add it")
	}
	return nil
}

// promote waits until id has caught up (it holds index since, and is
// within maxPromoteLag of the leader's last index) and makes it a voter.
// It fails when id makes no progress for CatchUpTimeout.
func (n *Node) promote(id, raftAddr string, since uint64) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var best uint64
	progressAt := time.Now()
	for {
		select {
		case <-tick.C:
		case <-n.stop:
			return raft.ErrRaftShutdown
		}
		if !n.leading() {
			return fmt.Errorf("leadership lost while %s caught up; %w", id, errNotLeaderNow)
		}
		p := n.progress.progress(id)
		if p.lastLog > best {
			best, progressAt = p.lastLog, time.Now()
		}
		last := n.raft.LastIndex()
		if p.lastLog >= since && p.lastLog+maxPromoteLag >= last && n.active(raft.ServerID(id)) {
			break
		}
		if time.Since(progressAt) > n.cfg.CatchUpTimeout {
			return fmt.Errorf("%s did not catch up: no progress for %v (its last log index %d, the leader's %d)", id, n.cfg.CatchUpTimeout, p.lastLog, last)
		}
	}
	if err := n.checkAddVoter(n.config()); err != nil {
		return err
	}
	if err := n.raft.AddVoter(raft.ServerID(id), raft.ServerAddress(raftAddr), 0, changeTimeout).Error(); err != nil {
		return fmt.Errorf("promoting %s to voter: %w", id, err)
	}
	n.log.Info("node promoted to voter", "node", id)
	return nil
}

// removeNode is RAFT.NODE REMOVE's work (its own goroutine). A leader
// that removes itself answers once the change is committed, then stops
// (hashicorp/raft shuts it down; checkRemoved sees it).
func (n *Node) removeNode(id string) error {
	if !n.leading() {
		return errNotLeaderNow
	}
	conf := n.config()
	i := slices.IndexFunc(conf, func(s raft.Server) bool { return string(s.ID) == id })
	if i < 0 {
		return fmt.Errorf("no such node '%s' in the cluster", id)
	}
	if conf[i].Suffrage == raft.Voter {
		if err := n.checkRemoveVoter(conf, id); err != nil {
			return err
		}
	}
	if err := n.raft.RemoveServer(raft.ServerID(id), 0, changeTimeout).Error(); err != nil {
		return fmt.Errorf("removing %s: %w", id, err)
	}
	n.log.Info("node removed", "node", id)
	n.progress.forget(id)
	if id != n.cfg.NodeID {
		n.proposeMembers(Member{ID: id})
		n.run(func(*engine.Engine) { n.removedIDs[id] = struct{}{} })
	}
	return nil
}

// errRemovedReply answers the progress reports of a node this leader
// removed.
var errRemovedReply = errors.New("this node was removed from the cluster")

// removedGrace is how long a node waits, out of the configuration and
// unheard of by any leader, before it takes itself as removed: a removal
// that was never committed is undone by the next leader, who brings the
// node back into the configuration and contacts it within an election or
// two.
func (n *Node) removedGrace() time.Duration { return max(10*n.cfg.ElectionTimeout, 3*time.Second) }

// stableRemovedKey marks a node removed from its cluster (the value is
// the cluster's ID): it refuses to start again with this state.
var stableRemovedKey = []byte("lockkv_removed")

// checkRemoved looks whether this node was removed from the cluster
// (watchLeadership's goroutine, every tick); suspect is when it was first
// seen out of the configuration. It returns true once removed.
//
// hashicorp/raft shuts down a leader that removed itself once the change
// commits. A follower gets the entry that removes it (the leader sends
// the log up to it before it stops replicating to that follower) but
// never learns that it committed, and stays a follower that no longer
// campaigns; it is taken as removed once the leader confirms it (it
// answers the node's progress report so, acks.go), or once it has been
// out of the configuration, and unheard of by any leader, for
// removedGrace.
func (n *Node) checkRemoved(suspect *time.Time) bool {
	self := raft.ServerID(n.cfg.NodeID)
	conf := n.config()
	in := slices.ContainsFunc(conf, func(s raft.Server) bool { return s.ID == self })
	if n.removalConfirmed.Load() {
		// A leader said so (acks.go): whatever this node's log holds.
		n.becomeRemoved()
		return true
	}
	if n.raft.State() == raft.Shutdown {
		select {
		case <-n.stop:
			return false // Shutdown
		default:
		}
		if !in {
			n.becomeRemoved()
			return true
		}
		return false
	}
	if in || len(conf) == 0 || !n.hasState.Load() {
		*suspect = time.Time{}
		return false
	}
	now := time.Now()
	if suspect.IsZero() {
		*suspect = now
		return false
	}
	grace := n.removedGrace()
	if now.Sub(*suspect) < grace || now.Sub(n.raft.LastContact()) < grace {
		return false
	}
	n.becomeRemoved()
	return true
}

// leaderSaysRemoved asks the members this node knows, on their client
// ports, which of them leads, and reports whether that leader, of this
// node's cluster, has no member with this node's ID: the node was removed
// while down or cut off (it never got the entry that removed it, and
// campaigns in vain). It runs on the acker's goroutine after
// removedGrace without a leader.
func (n *Node) leaderSaysRemoved() bool {
	ours := n.ClusterID() // "" if it stopped before learning it: any will do
	var addrs []string
	n.run(func(e *engine.Engine) {
		for _, s := range n.config() {
			if a := n.clientAddr(e, string(s.ID)); string(s.ID) != n.cfg.NodeID && a != "" {
				addrs = append(addrs, a)
			}
		}
	})
	for _, a := range addrs {
		c, err := dialPeer(a, n.cfg.Password, n.cfg.ClientTLS, time.Second)
		if err != nil {
			continue
		}
		reply, err := c.call(time.Second, []byte("INFO"), []byte("replication"))
		c.Close()
		if err != nil {
			continue
		}
		state, _ := infoField(reply, "raft_state")
		id, _ := infoField(reply, "raft_cluster_id")
		if state != "leader" || (ours != "" && id != ours) {
			continue
		}
		// By ID only: the address in the configuration may be written
		// otherwise than this node's --raft-advertise (a name, an IP).
		member := bytes.Contains(reply, []byte(":id="+n.cfg.NodeID+",raft_addr="))
		if !member {
			n.log.Warn("the leader does not count this node as a member", "node", n.cfg.NodeID, "leader_client_addr", a)
		}
		return !member
	}
	return false
}

// RemovedMsg is what a removed node logs, once, at WARN.
const RemovedMsg = "this node was removed from the cluster: it stops taking part (Raft stopped, clients get CLUSTERDOWN); wipe its data directory before adding it to a cluster again"

// becomeRemoved stops Raft on a node removed from the cluster, as etcd
// stops a removed member: it no longer takes part, its clients get
// CLUSTERDOWN, INFO says raft_state:removed, Removed is closed (the
// binary exits), and its data directory is marked so it does not start
// again as a member.
func (n *Node) becomeRemoved() {
	if !n.removed.CompareAndSwap(false, true) {
		return
	}
	id := n.ClusterID()
	if id == "" {
		id = "(no ID)"
	}
	n.log.Warn(RemovedMsg, "node", n.cfg.NodeID, "cluster_id", id)
	if n.cfg.DataDir != "" {
		if err := n.stable.Set(stableRemovedKey, []byte(id)); err != nil {
			n.log.Error("could not mark the data directory as removed", "err", err)
		}
	}
	if err := n.raft.Shutdown().Error(); err != nil {
		n.log.Warn("stopping Raft", "err", err)
	}
	n.run(func(e *engine.Engine) { e.SetLeader(false) })
	close(n.removedCh)
}

// Removed is closed once this node has been removed from the cluster
// (and has stopped Raft).
func (n *Node) Removed() <-chan struct{} { return n.removedCh }

// checkNotRemoved refuses to open a data directory of a removed node.
func (n *Node) checkNotRemoved(stable raft.StableStore) error {
	v, err := stable.Get(stableRemovedKey)
	if err != nil && err.Error() != "not found" {
		return fmt.Errorf("replication: reading the stable store: %w", err)
	}
	if len(v) == 0 {
		return nil
	}
	return fmt.Errorf("replication: this node (%s) was removed from cluster %s: wipe its data directory %s to add it to a cluster again",
		n.cfg.NodeID, v, n.cfg.DataDir)
}
