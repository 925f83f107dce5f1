package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/replication"
)

func TestLocksCommand(t *testing.T) {
	srv := lockkv.RunTWith(t, lockkv.Config{RequirePass: "pw"})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: "pw"})
	defer rdb.Close()
	ctx := context.Background()
	rdb.HSet(ctx, "orders-lock", "8f1c:42", 2)
	rdb.PExpire(ctx, "orders-lock", 30*time.Second)
	rdb.Set(ctx, "job-lock", "tok-1", time.Minute)
	for i := 0; i < 2500; i++ { // several round trips at --count 1000
		rdb.Set(ctx, "data"+string(rune('a'+i%26))+strings.Repeat("x", i%50), "v", 0)
	}
	var out bytes.Buffer
	if code := locksMain([]string{"--addr", srv.Addr(), "--requirepass", "pw"}, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") || lines[3] != "2 locks" {
		t.Fatalf("output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "orders-lock  reentrant") || !strings.Contains(out.String(), "8f1c:42 x2") || !strings.Contains(out.String(), "tok-1 x1") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	if code := locksMain([]string{"--addr", srv.Addr(), "--requirepass", "pw", "--match", "orders-*", "--json"}, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := strings.TrimSpace(out.String()); !strings.HasPrefix(got, `{"name":"orders-lock","type":"reentrant","lease_ms":`) ||
		!strings.HasSuffix(got, `"holders":[{"id":"8f1c:42","count":2,"lease_ms":-1}],"waiters":[]}`) {
		t.Fatalf("--json output: %s", got)
	}
	if code := locksMain([]string{"--addr", srv.Addr(), "--requirepass", "wrong"}, &out); code != 1 {
		t.Fatalf("wrong password: exit %d, want 1", code)
	}
}

// On a cluster follower, lockkv locks follows MOVED to the leader.
func TestLocksCommandFollowsLeader(t *testing.T) {
	var peers []replication.Peer
	for i := 0; i < 3; i++ {
		peers = append(peers, replication.Peer{ID: "n" + string(rune('1'+i)), RaftAddr: testnet.FreeAddr(t), ClientAddr: testnet.FreeAddr(t)})
	}
	srvs := make([]*lockkv.Server, 3)
	for i, p := range peers {
		s, err := lockkv.NewServer(lockkv.Config{Addr: p.ClientAddr, Cluster: &replication.Config{
			NodeID: p.ID, RaftAddr: p.RaftAddr, Bootstrap: true, Peers: peers,
			HeartbeatTimeout: 300 * time.Millisecond, ElectionTimeout: 300 * time.Millisecond}})
		if err == nil {
			err = s.Start()
		}
		if err != nil {
			t.Fatal(err)
		}
		srvs[i] = s
		t.Cleanup(func() { srvs[i].Close() })
	}
	ctx := context.Background()
	leader := -1
	testutil.Eventually(t, 15*time.Second, func() error {
		for i, s := range srvs {
			var ok bool
			s.Do(func(e *engine.Engine) { ok = e.IsLeader() })
			if ok {
				leader = i
				return nil
			}
		}
		return errors.New("no leader")
	})
	rdb := redis.NewClient(&redis.Options{Addr: peers[leader].ClientAddr})
	defer rdb.Close()
	if err := rdb.Set(ctx, "job-lock", "tok-7", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := locksMain([]string{"--addr", peers[(leader+1)%3].ClientAddr}, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), "job-lock") || !strings.Contains(out.String(), "1 locks") {
		t.Fatalf("output from a follower:\n%s", out.String())
	}
}
