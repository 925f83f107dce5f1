package replication

import (
	"strings"
	"time"
)

// join asks a member to add this node (RAFT.NODE ADD), following MOVED to
// the leader, until it succeeds or the node stops. A node that is already
// a member is added again harmlessly.
func (n *Node) join() {
	defer n.wg.Done()
	addr := n.cfg.Join
	backoff := 200 * time.Millisecond
	for {
		err := n.askToJoin(addr)
		if err == nil {
			n.log.Info("joined the cluster", "via", addr)
			return
		}
		msg := err.Error()
		if strings.HasPrefix(msg, "MOVED ") {
			if f := strings.Fields(msg); len(f) == 3 {
				addr = f[2]
				continue
			}
		}
		n.log.Warn("join failed; retrying", "via", addr, "err", err)
		select {
		case <-time.After(backoff):
		case <-n.stop:
			return
		}
		if backoff < 2*time.Second {
			backoff *= 2
		}
		if !strings.HasPrefix(msg, "MOVED ") {
			addr = n.cfg.Join
		}
	}
}

func (n *Node) askToJoin(addr string) error {
	c, err := dialPeer(addr, n.cfg.Password, n.cfg.ClientTLS, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.call(20*time.Second, []byte("RAFT.NODE"), []byte("ADD"), []byte(n.cfg.NodeID), []byte(n.cfg.RaftAdvertise), []byte(n.cfg.ClientAdvertise))
	return err
}
