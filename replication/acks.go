package replication

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/commands"
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

// Ack records a follower's progress (command goroutine).
func (n *Node) Ack(id string, match, applied uint64) {
	if n.acks == nil {
		n.acks = map[string]ack{}
	}
	n.acks[id] = ack{match: match, applied: applied, at: time.Now()}
}

func (n *Node) acker() {
	defer n.wg.Done()
	var (
		cli      *redis.Client
		cliAddr  string
		lastSent [2]uint64
		sentAt   time.Time
	)
	defer func() {
		if cli != nil {
			cli.Close()
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
		if n.raft.State() != raftFollower {
			continue
		}
		var addr string
		_, id := n.raft.LeaderWithID()
		if id == "" {
			continue
		}
		n.run(func(*commands.Engine) { addr = n.members[string(id)] })
		if addr == "" {
			continue
		}
		cur := [2]uint64{n.raft.LastIndex(), n.raft.AppliedIndex()}
		if cur == lastSent && addr == cliAddr && time.Since(sentAt) < time.Second {
			continue
		}
		if addr != cliAddr {
			if cli != nil {
				cli.Close()
			}
			cli = redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, PoolSize: 1, DisableIdentity: true, Password: n.cfg.Password,
				DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
			cliAddr = addr
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := cli.Do(ctx, "RAFT.NODE", "ACK", n.cfg.NodeID, strconv.FormatUint(cur[0], 10), strconv.FormatUint(cur[1], 10)).Err()
		cancel()
		if err == nil {
			lastSent, sentAt = cur, time.Now()
		}
	}
}
