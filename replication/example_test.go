package replication_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/replication"
)

// A 3-node cluster in one process, for a test: each server's Cluster is a
// *replication.Config naming the same peers, with the Raft log in memory
// (no DataDir). A write acknowledged by the leader is committed by a
// majority and readable on every node; a follower answers a write with
// MOVED to the leader (or, with Forward, relays it).
func Example_testCluster() {
	var peers []replication.Peer
	for _, id := range []string{"n1", "n2", "n3"} {
		raftAddr, _ := testnet.Addr() // any free addresses will do
		clientAddr, _ := testnet.Addr()
		peers = append(peers, replication.Peer{ID: id, RaftAddr: raftAddr, ClientAddr: clientAddr})
	}
	var nodes []*lockkv.Server
	for _, p := range peers {
		srv, err := lockkv.NewServer(lockkv.Config{Addr: p.ClientAddr, Cluster: &replication.Config{
			NodeID: p.ID, RaftAddr: p.RaftAddr, Peers: peers, Bootstrap: true,
			HeartbeatTimeout: 300 * time.Millisecond, ElectionTimeout: 300 * time.Millisecond,
		}})
		if err == nil {
			err = srv.Start()
		}
		if err != nil {
			panic(err)
		}
		defer srv.Close()
		nodes = append(nodes, srv)
	}

	// Any node's ROLE names the leader once one is elected.
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: nodes[0].Addr()})
	defer rdb.Close()
	var leader string
	for deadline := time.Now().Add(15 * time.Second); leader == "" && time.Now().Before(deadline); {
		if role, err := rdb.Do(ctx, "ROLE").Slice(); err == nil && role[0] == "master" {
			leader = nodes[0].Addr()
		} else if err == nil && role[0] == "slave" && role[3] == "connected" {
			leader = fmt.Sprintf("%v:%v", role[1], role[2])
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	lc := redis.NewClient(&redis.Options{Addr: leader})
	defer lc.Close()
	fmt.Println(lc.SetNX(ctx, "lock:order:42", "worker-1", 30*time.Second).Val())

	// Every member applies the committed write (READONLY: a follower
	// answers reads from its own state).
	applied := 0
	for _, srv := range nodes {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr(), OnConnect: func(ctx context.Context, cn *redis.Conn) error {
			return cn.ReadOnly(ctx).Err()
		}})
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if c.Exists(ctx, "lock:order:42").Val() == 1 {
				applied++
				break
			}
		}
		c.Close()
	}
	fmt.Println("nodes that have it:", applied)
	// Output:
	// true
	// nodes that have it: 3
}
