package replication

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// --join: a new node asks a member, through its client port, to add it.
// It first learns the cluster's ID there (INFO replication) and refuses a
// cluster other than its own; then it sends RAFT.NODE ADD, following
// MOVED to the leader, and waits for the reply, which comes once it is a
// voter. What cannot pass by retrying (the password refused, another
// cluster, a node the leader refuses) ends the join at once; the rest (no
// member answers, no leader yet, a change in progress) is retried with
// backoff for JoinTimeout.

// joinFatal is a join failure retrying cannot cure.
type joinFatal struct{ msg string }

func (e *joinFatal) Error() string { return e.msg }

func fatalf(format string, args ...any) error { return &joinFatal{fmt.Sprintf(format, args...)} }

// maxJoinHops bounds the MOVED redirections one attempt follows.
const maxJoinHops = 3

// join runs the join (Start, after Raft started: the leader probes and
// replicates to this node meanwhile).
func (n *Node) join() error {
	deadline := time.Now().Add(n.cfg.JoinTimeout)
	// State this node had before: a failed attempt may leave some of the
	// cluster's, which does not count.
	hadState := n.hasState.Load()
	backoff := 200 * time.Millisecond
	for {
		err := n.tryJoin(deadline, hadState)
		if err == nil {
			n.log.Info("joined the cluster", "via", n.cfg.Join, "cluster_id", n.ClusterID())
			return nil
		}
		var fatal *joinFatal
		if errors.As(err, &fatal) {
			n.log.Error("cannot join the cluster", "via", n.cfg.Join, "err", err)
			return fmt.Errorf("replication: cannot join the cluster through %s: %w", n.cfg.Join, err)
		}
		if time.Now().Add(backoff).After(deadline) {
			return fmt.Errorf("replication: could not join the cluster through %s within %v: %w", n.cfg.Join, n.cfg.JoinTimeout, err)
		}
		n.log.Warn("join failed; retrying", "via", n.cfg.Join, "err", err, "retry_in", backoff)
		select {
		case <-time.After(backoff):
		case <-n.stop:
			return errors.New("replication: stopped while joining")
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// checkJoinIdentity is --join on a node that is already a member: it
// asks the --join address once for the cluster's ID, and refuses to go on
// when it is another cluster's. When that address does not answer the
// node goes on: it may be needed to elect a leader.
func (n *Node) checkJoinIdentity() error {
	err := func() error {
		c, err := dialPeer(n.cfg.Join, n.cfg.Password, n.cfg.ClientTLS, 2*time.Second)
		if err != nil {
			var refusedAuth errorReply
			if errors.As(err, &refusedAuth) {
				return fatalf("%s refused this node's password (--requirepass): %v", n.cfg.Join, err)
			}
			return err
		}
		defer c.Close()
		return n.checkClusterID(c, true)
	}()
	var fatal *joinFatal
	switch {
	case errors.As(err, &fatal):
		n.log.Error("cannot join the cluster", "via", n.cfg.Join, "err", err)
		return fmt.Errorf("replication: cannot join the cluster through %s: %w", n.cfg.Join, err)
	case err != nil:
		n.log.Warn("already a member; could not check the cluster ID of the --join address", "node", n.cfg.NodeID, "join", n.cfg.Join, "err", err)
	default:
		n.log.Info("already a member: --join not needed", "node", n.cfg.NodeID, "join", n.cfg.Join)
	}
	return nil
}

// tryJoin is one attempt.
func (n *Node) tryJoin(deadline time.Time, hadState bool) error {
	addr := n.cfg.Join
	for hop := 0; ; hop++ {
		c, err := dialPeer(addr, n.cfg.Password, n.cfg.ClientTLS, 2*time.Second)
		if err != nil {
			var refusedAuth errorReply
			if errors.As(err, &refusedAuth) {
				return fatalf("%s refused this node's password (--requirepass): %v", addr, err)
			}
			return err
		}
		err = n.askToJoin(c, deadline, hadState)
		c.Close()
		var moved errorReply
		if errors.As(err, &moved) && strings.HasPrefix(string(moved), "MOVED ") && hop < maxJoinHops {
			if f := strings.Fields(string(moved)); len(f) == 3 {
				addr = f[2]
				continue
			}
		}
		return err
	}
}

// askToJoin checks the cluster's identity through c and asks to be added.
func (n *Node) askToJoin(c *peerConn, deadline time.Time, hadState bool) error {
	if err := n.checkClusterID(c, hadState); err != nil {
		return err
	}
	// The reply comes once this node is a voter; the leader gives up on
	// its own (CatchUpTimeout) if this node makes no progress.
	wait := max(time.Until(deadline), 30*time.Second)
	_, err := c.call(wait, []byte("RAFT.NODE"), []byte("ADD"), []byte(n.cfg.NodeID), []byte(n.cfg.RaftAdvertise), []byte(n.cfg.ClientAdvertise))
	var refusal errorReply
	if errors.As(err, &refusal) && (strings.HasPrefix(string(refusal), "ERR "+refusedPrefix) || strings.HasPrefix(string(refusal), "ERR invalid ")) {
		return fatalf("%s", strings.TrimPrefix(string(refusal), "ERR "))
	}
	if isAuthError(err) {
		return fatalf("%s: %v", c.addr, err)
	}
	return err
}

// checkClusterID learns the cluster's ID through c (INFO replication) and
// refuses a cluster whose ID is not this node's, or any cluster when
// hadState (state of this node's own) and it knows no ID.
func (n *Node) checkClusterID(c *peerConn, hadState bool) error {
	reply, err := c.call(5*time.Second, []byte("INFO"), []byte("replication"))
	if err != nil {
		if isAuthError(err) {
			return fatalf("%s wants a password (--requirepass): %v", c.addr, err)
		}
		return err
	}
	theirs, ok := infoField(reply, "raft_cluster_id")
	if !ok {
		return fatalf("%s is not a lockkv cluster node (its INFO replication has no raft_cluster_id)", c.addr)
	}
	ours := n.ClusterID()
	switch {
	case theirs == "":
		return fmt.Errorf("the cluster of %s has no ID yet (no leader has been elected)", c.addr)
	case ours != "" && ours != theirs:
		return fatalf("this node belongs to cluster %s, and %s to cluster %s: a node with state of its own never joins another cluster (wipe its data directory to join this one)", ours, c.addr, theirs)
	case ours == "" && hadState:
		return fatalf("this node has Raft state of its own but no cluster ID (it was bootstrapped, or started alone, as another cluster); wipe its data directory to join %s", c.addr)
	}
	return nil
}

// isAuthError reports a reply refusing this node's credentials.
func isAuthError(err error) bool {
	var e errorReply
	if !errors.As(err, &e) {
		return false
	}
	for _, p := range []string{"NOAUTH ", "WRONGPASS ", "NOPERM "} {
		if strings.HasPrefix(string(e), p) {
			return true
		}
	}
	return false
}

// infoField returns field name of an INFO reply (a bulk string).
func infoField(reply []byte, name string) (string, bool) {
	key := []byte("\r\n" + name + ":")
	i := bytes.Index(reply, key)
	if i < 0 {
		return "", false
	}
	v := reply[i+len(key):]
	if j := bytes.IndexByte(v, '\r'); j >= 0 {
		v = v[:j]
	}
	return string(v), true
}
