package replication

import (
	"context"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
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
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, DialTimeout: 2 * time.Second, ReadTimeout: 15 * time.Second, DisableIdentity: true, Password: n.cfg.Password})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Do(ctx, "RAFT.NODE", "ADD", n.cfg.NodeID, n.cfg.RaftAdvertise, n.cfg.ClientAdvertise).Err()
}
