package lockkv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
)

// Existing clients find the leader by themselves: go-redis's ClusterClient
// from CLUSTER SLOTS and -MOVED, its FailoverClient from SENTINEL
// get-master-addr-by-name and +switch-master, given the addresses of all
// nodes, and both keep working when the leader is stopped.
func TestClusterClientsFollowTheLeader(t *testing.T) {
	tc := startCluster(t, 3)
	ctx := context.Background()
	l := tc.leader()
	var addrs []string
	for _, p := range tc.peers {
		addrs = append(addrs, p.ClientAddr)
	}
	// go-redis reloads the slot map on MOVED and every
	// ClusterStateReloadInterval (60 s by default); a dead master answers
	// no MOVED, against Redis Cluster too, so the test reloads every second.
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRedirects: 8, ClusterStateReloadInterval: time.Second})
	t.Cleanup(func() { cc.Close() })
	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: addrs})
	t.Cleanup(func() { fc.Close() })

	// Every node answers as a Sentinel naming the leader, once the new
	// leader has registered the members' client addresses.
	for i := range tc.peers {
		sc := redis.NewSentinelClient(&redis.Options{Addr: addrs[i]})
		waitFor(t, "get-master-addr-by-name to name the leader", func() bool {
			addr, err := sc.GetMasterAddrByName(ctx, "mymaster").Result()
			if err != nil && err != redis.Nil {
				t.Fatalf("node %d: get-master-addr-by-name: %v", i, err)
			}
			return err == nil && strings.Join(addr, ":") == addrs[l]
		})
		sc.Close()
	}
	if err := cc.Set(ctx, "cluster-key", "1", 0).Err(); err != nil {
		t.Fatalf("ClusterClient SET: %v", err)
	}
	if err := fc.Set(ctx, "failover-key", "1", 0).Err(); err != nil {
		t.Fatalf("FailoverClient SET: %v", err)
	}
	if v, err := cc.Get(ctx, "failover-key").Result(); err != nil || v != "1" {
		t.Fatalf("ClusterClient GET = %q, %v", v, err)
	}

	// A client of a follower hears +switch-master when the leader goes.
	f := (l + 1) % 3
	sub := tc.client(f).Subscribe(ctx, "+switch-master")
	t.Cleanup(func() { sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	tc.stop(l)
	nl := tc.leader()
	select {
	case msg := <-sub.Channel():
		want := "mymaster " + strings.Replace(addrs[l], ":", " ", 1) + " " + strings.Replace(addrs[nl], ":", " ", 1)
		if msg.Payload != want {
			t.Fatalf("+switch-master %q, want %q", msg.Payload, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no +switch-master within 10s of the new leader")
	}

	// Both clients carry on against the new leader. A write in flight when
	// the leader stopped may fail once; the clients then find the leader.
	stopped := time.Now()
	testutil.Eventually(t, 20*time.Second, func() error { return cc.Set(ctx, "cluster-key", "2", 0).Err() })
	t.Logf("ClusterClient wrote to the new leader %v after the old one stopped", time.Since(stopped).Round(time.Millisecond))
	waitFor(t, "FailoverClient to write to the new leader", func() bool {
		return fc.Set(ctx, "failover-key", "2", 0).Err() == nil
	})
	for _, c := range []redis.Cmdable{cc, fc} {
		for key, want := range map[string]string{"cluster-key": "2", "failover-key": "2"} {
			if v, err := c.Get(ctx, key).Result(); err != nil || v != want {
				t.Fatalf("GET %s after failover = %q, %v", key, v, err)
			}
		}
	}
	sc := redis.NewSentinelClient(&redis.Options{Addr: addrs[f]})
	defer sc.Close()
	if addr, err := sc.GetMasterAddrByName(ctx, "mymaster").Result(); err != nil || strings.Join(addr, ":") != addrs[nl] {
		t.Fatalf("get-master-addr-by-name after failover = %v, %v; want %s", addr, err, addrs[nl])
	}
}
