package lockkv

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/replication"
)

// Membership changes on in-process clusters: RAFT.NODE ADD checks the node
// it adds (its address, its identity, its cluster, its state), promotes it
// once caught up, refuses changes that could cost the quorum; REMOVE
// refuses unknown nodes; a removed node stops; --join gives up at once
// on what retrying cannot cure.

// newNode starts a server that is a cluster node on fresh addresses,
// configured further by opt; it stops at the test's end.
func newNode(t *testing.T, id string, opt func(*Config)) (*Server, replication.Peer) {
	t.Helper()
	s, p, err := tryNewNode(t, id, opt)
	if err != nil {
		t.Fatalf("start %s: %v", id, err)
	}
	return s, p
}

func tryNewNode(t *testing.T, id string, opt func(*Config)) (*Server, replication.Peer, error) {
	p := replication.Peer{ID: id, RaftAddr: testnet.FreeAddr(t), ClientAddr: testnet.FreeAddr(t)}
	cfg := Config{Addr: p.ClientAddr, Cluster: &replication.Config{
		NodeID: id, RaftAddr: p.RaftAddr,
		HeartbeatTimeout: 300 * time.Millisecond, ElectionTimeout: 300 * time.Millisecond,
	}}
	if opt != nil {
		opt(&cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		return nil, p, err
	}
	if err := s.Start(); err != nil {
		return nil, p, err
	}
	t.Cleanup(func() { s.Close() })
	return s, p, nil
}

// members lists the configuration as a leader's INFO shows it:
// "id:voter" for each member, in ID order.
func members(t *testing.T, c *redis.Client) []string {
	t.Helper()
	info, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(info, "\r\n") {
		if !strings.HasPrefix(line, "raft_peer") {
			continue
		}
		var id, voter string
		for _, kv := range strings.Split(line[strings.IndexByte(line, ':')+1:], ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "id":
				id = v
			case "voter":
				voter = v
			}
		}
		out = append(out, id+":"+voter)
	}
	return out
}

func infoField(t *testing.T, c *redis.Client, name string) string {
	t.Helper()
	info, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

func clientOf(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: 30 * time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestMembershipAddChecks: what RAFT.NODE ADD refuses leaves the
// configuration as it was, and a node that may join ends a voter holding
// the data written before.
func TestMembershipAddChecks(t *testing.T) {
	tc := startCluster(t, 3)
	ctx := context.Background()
	lc := tc.client(tc.leader())
	if err := lc.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	conf := members(t, lc)
	refuses := func(want string, args ...any) {
		t.Helper()
		err := lc.Do(ctx, append([]any{"RAFT.NODE"}, args...)...).Err()
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("RAFT.NODE %v: %v, want %q...", args, err, want)
		}
		if got := members(t, lc); fmt.Sprint(got) != fmt.Sprint(conf) {
			t.Errorf("after RAFT.NODE %v the configuration is %v, was %v", args, got, conf)
		}
	}

	// Malformed.
	refuses("ERR invalid Raft address 'notanaddr': want host:port", "ADD", "n6", "notanaddr", "alsonot")
	refuses("ERR invalid client address 'alsonot': want host:port", "ADD", "n6", "127.0.0.1:7000", "alsonot")
	refuses("ERR invalid Raft address '127.0.0.1:0': want host:port", "ADD", "n6", "127.0.0.1:0", "127.0.0.1:7000")
	refuses("ERR invalid node ID: "+engine.NodeIDRule, "ADD", "a b", "127.0.0.1:7000", "127.0.0.1:7001")
	refuses("ERR invalid node ID: "+engine.NodeIDRule, "ADD", "", "127.0.0.1:7000", "127.0.0.1:7001")
	refuses("ERR invalid node ID: "+engine.NodeIDRule, "ADD", strings.Repeat("x", 256), "127.0.0.1:7000", "127.0.0.1:7001")
	refuses("ERR syntax error", "ADD", "n6", "127.0.0.1:7000", "127.0.0.1:7001", "MAYBE")
	// Nothing there, or no such host.
	nobody := testnet.FreeAddr(t)
	refuses("ERR cannot reach n6's Raft port "+nobody+": ", "ADD", "n6", nobody, "127.0.0.1:7001")
	refuses("ERR cannot resolve n6's Raft address nosuchhost.invalid:7000", "ADD", "n6", "nosuchhost.invalid:7000", "127.0.0.1:7001")
	// An address in use, a member's ID on another address.
	refuses("ERR refusing to add n6: Raft address "+tc.peers[1].RaftAddr+" is member n2's", "ADD", "n6", tc.peers[1].RaftAddr, "127.0.0.1:7001")
	refuses("ERR refusing to add n2: it is already a member with Raft address "+tc.peers[1].RaftAddr, "ADD", "n2", "127.0.0.1:7000", "127.0.0.1:7001")
	refuses("ERR no such node 'nosuch' in the cluster", "REMOVE", "nosuch")
	refuses("ERR invalid node ID: "+engine.NodeIDRule, "REMOVE", "no\r\nsuch")

	// A node that is another one than named.
	_, p5 := newNode(t, "n5", nil)
	refuses(`ERR refusing to add n6: the node at `+p5.RaftAddr+` is "n5"`, "ADD", "n6", p5.RaftAddr, p5.ClientAddr)

	// A node started alone: it made itself a cluster with an ID of its
	// own (the trap of a node started without --peers or --join).
	lone, pl := newNode(t, "lone", func(c *Config) { rc(c).Bootstrap = true })
	waitFor(t, "the lone node to lead and have an ID", func() bool { return lone.Node().ClusterID() != "" })
	refuses("ERR refusing to add lone: it belongs to another cluster (its cluster ID "+lone.Node().ClusterID()+", this cluster's "+tc.srvs[0].Node().ClusterID()+")",
		"ADD", "lone", pl.RaftAddr, pl.ClientAddr)
	// A node with state but no ID: bootstrapped with peers that never
	// came, so it never elected anyone.
	_, ps := newNode(t, "stateful", func(c *Config) {
		rc(c).Bootstrap = true
		rc(c).Peers = []replication.Peer{{ID: "stateful", RaftAddr: rc(c).RaftAddr}, {ID: "ghost", RaftAddr: testnet.FreeAddr(t)}}
	})
	refuses("ERR refusing to add stateful: it has Raft state of its own but no cluster ID", "ADD", "stateful", ps.RaftAddr, ps.ClientAddr)

	// A node that waits to be added: it joins as a voter, with the data.
	if err := lc.Do(ctx, "RAFT.NODE", "ADD", "n5", p5.RaftAddr, p5.ClientAddr).Err(); err != nil {
		t.Fatalf("ADD n5: %v", err)
	}
	if got, want := members(t, lc), []string{"n1:1", "n2:1", "n3:1", "n5:1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after ADD n5: %v, want %v", got, want)
	}
	c5 := clientOf(t, p5.ClientAddr)
	if err := c5.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := c5.Get(ctx, "before").Result(); err != nil || v != "1" {
		t.Fatalf("n5 right after ADD answered: before = %q, %v", v, err)
	}
	// Asked again (a --join that retried): nothing to do.
	if err := lc.Do(ctx, "RAFT.NODE", "ADD", "n5", p5.RaftAddr, p5.ClientAddr).Err(); err != nil {
		t.Fatalf("ADD n5 again: %v", err)
	}
}

// TestMembershipNonvoter: NONVOTER adds a member that does not vote and
// answers at once.
func TestMembershipNonvoter(t *testing.T) {
	tc := startCluster(t, 1)
	ctx := context.Background()
	lc := tc.client(tc.leader())
	_, p := newNode(t, "n2", nil)
	if err := lc.Do(ctx, "RAFT.NODE", "ADD", "n2", p.RaftAddr, p.ClientAddr, "nonvoter").Err(); err != nil {
		t.Fatal(err)
	}
	if got := members(t, lc); fmt.Sprint(got) != "[n1:1 n2:0]" {
		t.Fatalf("configuration %v", got)
	}
	// Then a voter: promoted once caught up.
	if err := lc.Do(ctx, "RAFT.NODE", "ADD", "n2", p.RaftAddr, p.ClientAddr, "VOTER").Err(); err != nil {
		t.Fatal(err)
	}
	if got := members(t, lc); fmt.Sprint(got) != "[n1:1 n2:1]" {
		t.Fatalf("configuration %v", got)
	}
}

// TestMembershipHelp: RAFT.NODE HELP lists the subcommands.
func TestMembershipHelp(t *testing.T) {
	tc := startCluster(t, 1)
	lines, err := tc.client(0).Do(context.Background(), "RAFT.NODE", "HELP").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 5 || lines[0] != "RAFT.NODE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:" ||
		!strings.HasPrefix(lines[1], "ADD <node-id>") || lines[len(lines)-2] != "HELP" {
		t.Fatalf("RAFT.NODE HELP = %q", lines)
	}
}

// TestMembershipQuorum: with one of three voters down, removing a live
// voter or adding a voter could leave the cluster without a quorum and is
// refused; removing the dead voter is allowed, after which adding one is.
func TestMembershipQuorum(t *testing.T) {
	tc := startCluster(t, 3)
	ctx := context.Background()
	clients := map[int]*redis.Client{}
	// lc is the client of the leader now: on a loaded machine leadership
	// may move (the stalled-leader watchdog), and every check below reads
	// the same from any leader.
	lc := func() *redis.Client {
		l := tc.leader()
		if clients[l] == nil {
			clients[l] = tc.client(l)
		}
		return clients[l]
	}
	l := tc.leader()
	dead, live := (l+1)%3, (l+2)%3
	tc.stop(dead)
	stopped := time.Now()
	deadID, liveID := tc.peers[dead].ID, tc.peers[live].ID
	var lastInfo string
	defer func() {
		if t.Failed() {
			t.Log(lastInfo)
		}
	}()
	// The leader stops hearing from it: INFO's lag grows past the time
	// after which a member counts as gone (two election timeouts, at
	// least 1 s), or is -1 for a leader elected since, which never heard
	// from it. INFO's lag comes from the members' progress reports, the
	// leader's view of who answers from its Raft RPCs: a member stopped
	// right after the election answered its first heartbeats but never
	// reported, so the time since the stop must pass the active window
	// (1 s here) too.
	waitFor(t, deadID+" to be unheard for 2 s", func() bool {
		if time.Since(stopped) < 1500*time.Millisecond {
			return false
		}
		info, _ := lc().Info(ctx, "replication").Result()
		lastInfo = info
		for _, line := range strings.Split(info, "\r\n") {
			if strings.Contains(line, "id="+deadID+",") {
				var lag int64
				i := strings.Index(line, "last_contact_ms=")
				fmt.Sscan(line[i+len("last_contact_ms="):], &lag)
				return lag > 2000 || lag == -1
			}
		}
		return false
	})
	conf := members(t, lc())
	err := lc().Do(ctx, "RAFT.NODE", "REMOVE", liveID).Err()
	if want := fmt.Sprintf("ERR removing %s could leave the cluster without a quorum: 1 of the 2 voters left answer (%s does not), and 2 need 2", liveID, deadID); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("REMOVE of a live voter: %v, want %q...", err, want)
	}
	_, p4 := newNode(t, "n4", nil)
	err = lc().Do(ctx, "RAFT.NODE", "ADD", "n4", p4.RaftAddr, p4.ClientAddr).Err()
	if want := fmt.Sprintf("ERR adding a voter now could leave the cluster without a quorum: 2 of its 3 voters answer (%s does not), and 4 voters need 3", deadID); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("ADD of a voter: %v, want %q...", err, want)
	}
	if got := members(t, lc()); fmt.Sprint(got) != fmt.Sprint(conf) {
		t.Fatalf("configuration %v after the refusals, was %v", got, conf)
	}

	// The way out: remove the dead one, then add.
	if err := lc().Do(ctx, "RAFT.NODE", "REMOVE", deadID).Err(); err != nil {
		t.Fatalf("REMOVE of the dead voter: %v", err)
	}
	if err := lc().Do(ctx, "RAFT.NODE", "ADD", "n4", p4.RaftAddr, p4.ClientAddr).Err(); err != nil {
		t.Fatalf("ADD after the removal: %v", err)
	}
	want := []string{tc.peers[l].ID + ":1", liveID + ":1", "n4:1"}
	slices.Sort(want)
	if got := members(t, lc()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("configuration %v, want %v", got, want)
	}
	if err := lc().Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// The last voter cannot be removed.
	one := startCluster(t, 1)
	err = one.client(one.leader()).Do(ctx, "RAFT.NODE", "REMOVE", "n1").Err()
	if err == nil || err.Error() != "ERR cannot remove n1: it is the cluster's only voter" {
		t.Fatalf("REMOVE of the only voter: %v", err)
	}
}

// TestMembershipRemoveLeader: the leader removing itself answers OK, then
// stops as a removed node; the others elect a leader and take writes.
func TestMembershipRemoveLeader(t *testing.T) {
	logs := make([]*captureHandler, 3)
	i := 0
	tc := startClusterCfg(t, 3, func(c *Config) {
		logs[i] = &captureHandler{}
		c.Logger = slog.New(logs[i])
		i++
	})
	ctx := context.Background()
	l := tc.leader()
	lid := tc.peers[l].ID
	if err := tc.client(l).Do(ctx, "RAFT.NODE", "REMOVE", lid).Err(); err != nil {
		t.Fatalf("REMOVE of the leader itself: %v", err)
	}
	select {
	case <-tc.srvs[l].Node().Removed():
	case <-time.After(10 * time.Second):
		t.Fatal("the old leader does not stop")
	}
	if n := logs[l].count(slog.LevelWarn, replication.RemovedMsg); n != 1 {
		t.Errorf("the old leader logged its removal %d times", n)
	}
	old := tc.srvs[l]
	tc.srvs[l] = nil // not a candidate for tc.leader
	nl := tc.leader()
	nc := tc.client(nl)
	if err := nc.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got := members(t, nc); len(got) != 2 || strings.Contains(fmt.Sprint(got), lid) {
		t.Errorf("configuration after the leader's removal: %v", got)
	}
	oc := clientOf(t, tc.peers[l].ClientAddr)
	if st := infoField(t, oc, "raft_state"); st != "removed" {
		t.Errorf("the old leader's raft_state = %q", st)
	}
	if err := oc.Set(ctx, "k", "x", 0).Err(); err == nil || err.Error() != engine.ErrClusterDown {
		t.Errorf("SET on the removed node: %v", err)
	}
	old.Close()
}

// TestMembershipRemovedWhileDown: the usual removal is of a node that is
// down. Restarted with its old state it has not got the entry that
// removed it (unless the leader's last attempt to send it arrives after
// the restart), so it campaigns in vain (pre-vote keeps it from
// disturbing the others); after ten election timeouts without a leader it
// asks the members who leads, learns that it is no member, and stops.
func TestMembershipRemovedWhileDown(t *testing.T) {
	base := t.TempDir()
	logs := make([]*captureHandler, 3)
	i := 0
	tc := startClusterCfg(t, 3, func(c *Config) {
		rc(c).DataDir = filepath.Join(base, rc(c).NodeID)
		logs[i] = &captureHandler{}
		c.Logger = slog.New(logs[i])
		i++
	})
	ctx := context.Background()
	l := tc.leader()
	d := (l + 1) % 3
	defer func() {
		if t.Failed() {
			for i, h := range logs {
				h.mu.Lock()
				t.Logf("log of %s:\n%s", tc.peers[i].ID, strings.Join(h.msgs, "\n"))
				h.mu.Unlock()
			}
		}
	}()
	tc.stop(d)
	if err := tc.client(l).Do(ctx, "RAFT.NODE", "REMOVE", tc.peers[d].ID).Err(); err != nil {
		t.Fatalf("REMOVE of the stopped node: %v", err)
	}
	tc.start(d)
	select {
	case <-tc.srvs[d].Node().Removed():
	case <-time.After(15 * time.Second):
		t.Fatal("the node removed while down does not stop")
	}
	if n := logs[d].count(slog.LevelWarn, replication.RemovedMsg); n != 1 {
		t.Errorf("it logged its removal %d times", n)
	}
	if err := tc.client(tc.leader()).Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestJoinFailsFast: --join ends at once, with the reason, when the
// cluster refuses the password or is another cluster than the node's own,
// instead of retrying until JoinTimeout.
func TestJoinFailsFast(t *testing.T) {
	tc := startClusterCfg(t, 1, func(c *Config) { c.RequirePass = "pw" })
	tc.leader()
	member := tc.peers[0].ClientAddr
	join := func(id string, opt func(*Config)) error {
		_, _, err := tryNewNode(t, id, func(c *Config) {
			rc(c).Join = member
			rc(c).JoinTimeout = time.Minute
			opt(c)
		})
		return err
	}
	err := join("n2", func(c *Config) { c.RequirePass = "wrong" })
	if err == nil || !strings.Contains(err.Error(), member+" refused this node's password (--requirepass): WRONGPASS") {
		t.Errorf("--join with a wrong password: %v", err)
	}
	err = join("n2", func(c *Config) {})
	if err == nil || !strings.Contains(err.Error(), "refused this node's password") && !strings.Contains(err.Error(), "wants a password") {
		t.Errorf("--join without a password: %v", err)
	}

	// A node of another cluster (its data directory says so).
	dir := filepath.Join(t.TempDir(), "b1")
	b, _ := newNode(t, "b1", func(c *Config) {
		c.RequirePass = "pw"
		rc(c).Bootstrap = true
		rc(c).DataDir = dir
	})
	waitFor(t, "b1 to have an ID", func() bool { return b.Node().ClusterID() != "" })
	bID := b.Node().ClusterID()
	b.Close()
	err = join("b1", func(c *Config) {
		c.RequirePass = "pw"
		rc(c).DataDir = dir
	})
	want := fmt.Sprintf("this node belongs to cluster %s, and %s to cluster %s", bID, member, tc.srvs[0].Node().ClusterID())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--join of another cluster's node: %v, want ...%q...", err, want)
	}
	// A node with state but no cluster ID: bootstrapped with a peer that
	// never came, so no leader ever made one up.
	dir = filepath.Join(t.TempDir(), "c1")
	c1, _ := newNode(t, "c1", func(c *Config) {
		rc(c).Bootstrap = true
		rc(c).DataDir = dir
		rc(c).Peers = []replication.Peer{{ID: "c1", RaftAddr: rc(c).RaftAddr}, {ID: "ghost", RaftAddr: testnet.FreeAddr(t)}}
	})
	c1.Close()
	err = join("c1", func(c *Config) {
		c.RequirePass = "pw"
		rc(c).DataDir = dir
	})
	if want := "this node has Raft state of its own but no cluster ID"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--join of a node with state but no ID: %v, want ...%q...", err, want)
	}
	// And the cluster never heard of them.
	mc := redis.NewClient(&redis.Options{Addr: member, Password: "pw"})
	defer mc.Close()
	if got := members(t, mc); fmt.Sprint(got) != "[n1:1]" {
		t.Errorf("configuration %v", got)
	}

	// A server that is no cluster node.
	plain := RunT(t)
	err = join("n3", func(c *Config) { rc(c).Join = plain.Addr() })
	if want := plain.Addr() + " is not a lockkv cluster node"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--join of a standalone server: %v, want ...%q...", err, want)
	}
}
