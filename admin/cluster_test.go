package admin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

func TestNodeID(t *testing.T) {
	// SHA-1 of "n1", as `printf n1 | sha1sum` prints it.
	id := NodeID("n1")
	if len(id) != 40 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Fatalf("NodeID = %q, want 40 lower-case hex digits", id)
	}
	if id == NodeID("n2") || id != NodeID("n1") {
		t.Fatal("NodeID is not a stable function of the Raft ID")
	}
	if got := NodeID(""); got != "da39a3ee5e6b4b0d3255bfef95601890afd80709" {
		t.Fatalf("NodeID(\"\") = %s, want SHA-1 of the empty string", got)
	}
}

func TestClusterStandalone(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	for _, args := range [][]string{
		{"CLUSTER", "INFO"}, {"CLUSTER", "SLOTS"}, {"CLUSTER", "HELP"}, {"CLUSTER", "KEYSLOT", "x"},
		{"READONLY"}, {"READWRITE"}, {"ASKING"},
	} {
		te.Expect(cl, conn, "-"+engine.ErrClusterDisabled+"\r\n", args...)
	}
	te.Expect(cl, conn, "-ERR unknown command 'SENTINEL', with args beginning with: 'masters' \r\n", "SENTINEL", "masters")
	te.Expect(cl, conn, "-ERR unknown command 'sentinel', with args beginning with: \r\n", "sentinel")
	te.Expect(cl, conn, "*1\r\n$-1\r\n", "COMMAND", "INFO", "sentinel")
	te.Expect(cl, conn, "-ERR unknown command 'RAFT.NODE', with args beginning with: 'ADD' 'n2' \r\n", "RAFT.NODE", "ADD", "n2")
	te.Expect(cl, conn, "*1\r\n$-1\r\n", "COMMAND", "INFO", "raft.node")
	if out := te.Do(cl, conn, "INFO", "cluster"); !strings.Contains(out, "cluster_enabled:0\r\n") {
		t.Fatalf("INFO cluster = %q", out)
	}
	if out := te.Do(cl, conn, "COMMAND", "LIST"); strings.Contains(out, "sentinel") || strings.Contains(out, "raft.node") {
		t.Fatal("COMMAND LIST shows sentinel or raft.node on a standalone server")
	}
	if r := (&engine.Ctx{E: te.E, C: cl}).Redirect(engine.Lookup([]byte("set")), [][]byte{[]byte("set"), []byte("k"), []byte("v")}); r != "" {
		t.Fatalf("standalone redirect = %q", r)
	}
}

func TestClusterCommands(t *testing.T) {
	fc := enginetest.NewFakeCluster("n1")
	te := enginetest.NewCluster(t, fc)
	cl, conn := te.Client()
	id1, id2, id3 := NodeID("n1"), NodeID("n2"), NodeID("n3")
	now := te.E.NowMs()

	te.Expect(cl, conn, bulk(id1), "CLUSTER", "MYID")
	te.Expect(cl, conn, ":12182\r\n", "CLUSTER", "KEYSLOT", "foo")
	te.Expect(cl, conn, ":12182\r\n", "CLUSTER", "KEYSLOT", "{foo}x")
	te.Expect(cl, conn, "+OK\r\n", "READONLY")
	if !cl.Readonly {
		t.Fatal("READONLY did not mark the client")
	}
	te.Expect(cl, conn, "+OK\r\n", "READWRITE")
	if cl.Readonly {
		t.Fatal("READWRITE did not clear READONLY")
	}
	te.Expect(cl, conn, "+OK\r\n", "ASKING")

	// n3 was last heard 2.5 s ago: still linked (linkDownMs is 5 s).
	slots := "*1\r\n*5\r\n:0\r\n:16383\r\n" +
		"*4\r\n" + bulk("10.0.0.1") + ":6001\r\n" + bulk(id1) + "*0\r\n" +
		"*4\r\n" + bulk("10.0.0.2") + ":6002\r\n" + bulk(id2) + "*0\r\n" +
		"*4\r\n" + bulk("10.0.0.3") + ":6003\r\n" + bulk(id3) + "*0\r\n"
	te.Expect(cl, conn, slots, "CLUSTER", "SLOTS")

	nodesAt := func(now int64) string {
		return id1 + " 10.0.0.1:6001@7001 myself,master - 0 0 7 connected 0-16383\n" +
			id2 + " 10.0.0.2:6002@7002 slave " + id1 + fmt.Sprintf(" 0 %d 7 connected\n", now-120) +
			id3 + " 10.0.0.3:6003@7003 slave " + id1 + fmt.Sprintf(" 0 %d 7 connected\n", now-2500)
	}
	nodes := nodesAt(now)
	te.Expect(cl, conn, bulk(nodes), "CLUSTER", "NODES")
	lines := strings.Split(strings.TrimSuffix(nodes, "\n"), "\n")
	te.Expect(cl, conn, "*2\r\n"+bulk(lines[1])+bulk(lines[2]), "CLUSTER", "REPLICAS", id1)
	te.Expect(cl, conn, "*2\r\n"+bulk(lines[1])+bulk(lines[2]), "CLUSTER", "SLAVES", id1)
	te.Expect(cl, conn, "-ERR The specified node is not a master\r\n", "CLUSTER", "REPLICAS", id2)
	te.Expect(cl, conn, "-ERR Unknown node nosuch\r\n", "CLUSTER", "REPLICAS", "nosuch")

	shardNode := func(id, ip string, port int, role string, off int, health string) string {
		return "*14\r\n" + bulk("id") + bulk(id) + bulk("port") + fmt.Sprintf(":%d\r\n", port) +
			bulk("ip") + bulk(ip) + bulk("endpoint") + bulk(ip) + bulk("role") + bulk(role) +
			bulk("replication-offset") + fmt.Sprintf(":%d\r\n", off) + bulk("health") + bulk(health)
	}
	shards := "*1\r\n*4\r\n" + bulk("slots") + "*2\r\n:0\r\n:16383\r\n" + bulk("nodes") + "*3\r\n" +
		shardNode(id1, "10.0.0.1", 6001, "master", 42, "online") +
		shardNode(id2, "10.0.0.2", 6002, "replica", 40, "online") +
		shardNode(id3, "10.0.0.3", 6003, "replica", 41, "online")
	te.Expect(cl, conn, shards, "CLUSTER", "SHARDS")

	info := "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n" +
		"cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:3\r\ncluster_size:1\r\n" +
		"cluster_current_epoch:7\r\ncluster_my_epoch:7\r\ncluster_stats_messages_sent:0\r\n" +
		"cluster_stats_messages_received:0\r\ntotal_cluster_links_buffer_limit_exceeded:0\r\n"
	te.Expect(cl, conn, bulk(info), "CLUSTER", "INFO")
	if out := te.Do(cl, conn, "INFO", "cluster"); !strings.Contains(out, "cluster_enabled:1\r\n") {
		t.Fatalf("INFO cluster = %q", out)
	}
	if out := te.Do(cl, conn, "INFO", "server"); !strings.Contains(out, "redis_mode:cluster\r\n") {
		t.Fatalf("INFO server = %q", out)
	}

	// Keys in a slot: live ones only.
	te.Do(cl, conn, "SET", "foo", "1")
	te.Do(cl, conn, "SET", "{foo}x", "1")
	te.Do(cl, conn, "SET", "{foo}gone", "1", "PX", "10")
	te.Do(cl, conn, "SET", "bar", "1")
	te.Advance(20e6)
	te.Expect(cl, conn, ":2\r\n", "CLUSTER", "COUNTKEYSINSLOT", "12182")
	te.Expect(cl, conn, ":1\r\n", "CLUSTER", "COUNTKEYSINSLOT", "5061")
	te.Expect(cl, conn, ":0\r\n", "CLUSTER", "COUNTKEYSINSLOT", "0")
	te.Expect(cl, conn, "-ERR Invalid slot\r\n", "CLUSTER", "COUNTKEYSINSLOT", "16384")
	te.Expect(cl, conn, "-ERR Invalid slot\r\n", "CLUSTER", "COUNTKEYSINSLOT", "-1")
	te.Expect(cl, conn, "-ERR value is not an integer or out of range\r\n", "CLUSTER", "COUNTKEYSINSLOT", "x")
	if out := te.Do(cl, conn, "CLUSTER", "GETKEYSINSLOT", "12182", "10"); out != "*2\r\n$3\r\nfoo\r\n$6\r\n{foo}x\r\n" && out != "*2\r\n$6\r\n{foo}x\r\n$3\r\nfoo\r\n" {
		t.Fatalf("GETKEYSINSLOT = %q", out)
	}
	if out := te.Do(cl, conn, "CLUSTER", "GETKEYSINSLOT", "12182", "1"); !strings.HasPrefix(out, "*1\r\n") {
		t.Fatalf("GETKEYSINSLOT count 1 = %q", out)
	}
	te.Expect(cl, conn, "*0\r\n", "CLUSTER", "GETKEYSINSLOT", "12182", "0")
	te.Expect(cl, conn, "-ERR Invalid slot or number of keys\r\n", "CLUSTER", "GETKEYSINSLOT", "12182", "-1")
	te.Expect(cl, conn, "-ERR Invalid slot or number of keys\r\n", "CLUSTER", "GETKEYSINSLOT", "16384", "1")
	te.Expect(cl, conn, "-ERR value is not an integer or out of range\r\n", "CLUSTER", "GETKEYSINSLOT", "1", "x")
	// Cluster-configuration commands mean nothing to a Raft cluster.
	te.Expect(cl, conn, "-"+engine.ErrClusterDisabled+"\r\n", "CLUSTER", "ADDSLOTS", "1")

	// RESP3: maps and verbatim strings, as Redis.
	te.Do(cl, conn, "HELLO", "3")
	if out := te.Do(cl, conn, "CLUSTER", "SLOTS"); !strings.Contains(out, bulk(id1)+"%0\r\n") {
		t.Fatalf("RESP3 CLUSTER SLOTS = %q", out)
	}
	nodes = nodesAt(te.E.NowMs())
	if out := te.Do(cl, conn, "CLUSTER", "NODES"); out != fmt.Sprintf("=%d\r\ntxt:%s\r\n", len(nodes)+4, nodes) {
		t.Fatalf("RESP3 CLUSTER NODES = %q", out)
	}
	if out := te.Do(cl, conn, "CLUSTER", "SHARDS"); !strings.HasPrefix(out, "*1\r\n%2\r\n"+bulk("slots")) || !strings.Contains(out, "%7\r\n") {
		t.Fatalf("RESP3 CLUSTER SHARDS = %q", out)
	}
}

func TestClusterNoLeader(t *testing.T) {
	fc := enginetest.NewFakeCluster("n2")
	fc.LeaderID = ""
	fc.Members[0].LagMs = -1
	fc.Members[2].LagMs = -1
	fc.State.State = "candidate"
	te := enginetest.NewCluster(t, fc)
	cl, conn := te.Client()
	te.Expect(cl, conn, "*0\r\n", "CLUSTER", "SLOTS")
	out := te.Do(cl, conn, "CLUSTER", "INFO")
	if !strings.Contains(out, "cluster_state:fail\r\n") || !strings.Contains(out, "cluster_slots_assigned:0\r\n") || !strings.Contains(out, "cluster_size:0\r\n") {
		t.Fatalf("CLUSTER INFO without a leader = %q", out)
	}
	out = te.Do(cl, conn, "CLUSTER", "NODES")
	if strings.Contains(out, "slave") || strings.Contains(out, "0-16383") || !strings.Contains(out, "myself,master - 0 0 7 connected\n") {
		t.Fatalf("CLUSTER NODES without a leader = %q", out)
	}
	te.Expect(cl, conn, "*0\r\n", "CLUSTER", "REPLICAS", NodeID("n1"))
	te.Expect(cl, conn, "*-1\r\n", "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	te.Expect(cl, conn, "*0\r\n", "SENTINEL", "MASTERS")
	te.Expect(cl, conn, "-ERR No such master with that name\r\n", "SENTINEL", "MASTER", "mymaster")
	set := [][]byte{[]byte("SET"), []byte("foo"), []byte("v")}
	if r := (&engine.Ctx{E: te.E, C: cl}).Redirect(engine.Lookup(set[0]), set); r != engine.ErrClusterDown {
		t.Fatalf("redirect without a leader = %q", r)
	}
}

func TestSentinelCommands(t *testing.T) {
	fc := enginetest.NewFakeCluster("n2")
	fc.State.State = "follower"
	fc.Members[0].LagMs = 80
	fc.Members[2].LagMs = -1 // a follower does not hear from other followers
	te := enginetest.NewCluster(t, fc)
	cl, conn := te.Client()
	id1, id2, id3 := NodeID("n1"), NodeID("n2"), NodeID("n3")

	te.Expect(cl, conn, "*2\r\n"+bulk("10.0.0.1")+bulk("6001"), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	te.Expect(cl, conn, "*-1\r\n", "SENTINEL", "get-master-addr-by-name", "other")
	te.Expect(cl, conn, bulk(id2), "SENTINEL", "MYID")
	te.Expect(cl, conn, "+OK 3 usable Sentinels. Quorum and failover authorization can be reached\r\n", "SENTINEL", "CKQUORUM", "mymaster")
	te.Expect(cl, conn, "-ERR No such master with that name\r\n", "SENTINEL", "CKQUORUM", "other")
	te.Expect(cl, conn, "-ERR No such master with that name\r\n", "SENTINEL", "REPLICAS", "other")
	te.Expect(cl, conn, "*3\r\n:0\r\n$1\r\n*\r\n:0\r\n", "SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "10.0.0.1", "6001", "7", "*")
	te.Expect(cl, conn, "-ERR value is not an integer or out of range\r\n", "SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "10.0.0.1", "6001", "x", "*")
	te.Expect(cl, conn, "-ERR wrong number of arguments for 'sentinel|get-master-addr-by-name' command\r\n", "SENTINEL", "GET-MASTER-ADDR-BY-NAME")
	te.Expect(cl, conn, "-ERR unknown subcommand 'foo'. Try SENTINEL HELP.\r\n", "SENTINEL", "foo")
	te.Expect(cl, conn, "*0\r\n", "SENTINEL", "PENDING-SCRIPTS")
	if out := te.Do(cl, conn, "SENTINEL", "MONITOR", "m", "1.2.3.4", "1", "2"); !strings.HasPrefix(out, "-ERR SENTINEL MONITOR is not supported") {
		t.Fatalf("SENTINEL MONITOR = %q", out)
	}

	// The leader as Sentinel's master: Sentinel's field names and order.
	fields := func(out string) []string {
		t.Helper()
		v, rest, err := parseRESP(out)
		if err != nil || rest != "" {
			t.Fatalf("bad reply %q: %v", out, err)
		}
		return v
	}
	master := fields(te.Do(cl, conn, "SENTINEL", "MASTER", "mymaster"))
	want := []string{"name", "mymaster", "ip", "10.0.0.1", "port", "6001", "runid", id1, "flags", "master",
		"link-pending-commands", "0", "link-refcount", "1", "last-ping-sent", "0", "last-ok-ping-reply", "80",
		"last-ping-reply", "80", "down-after-milliseconds", "5000", "info-refresh", "80", "role-reported", "master",
		"role-reported-time", "0", "config-epoch", "7", "num-slaves", "2", "num-other-sentinels", "2", "quorum", "2",
		"failover-timeout", "180000", "parallel-syncs", "1"}
	if strings.Join(master, " ") != strings.Join(want, " ") {
		t.Fatalf("SENTINEL MASTER =\n%q\nwant\n%q", master, want)
	}
	if got := fields(te.Do(cl, conn, "SENTINEL", "MASTERS")); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("SENTINEL MASTERS = %q", got)
	}
	reps := fields(te.Do(cl, conn, "SENTINEL", "REPLICAS", "mymaster"))
	wantRep := func(id, addr, ip, port, lag, off string) []string {
		return []string{"name", addr, "ip", ip, "port", port, "runid", id, "flags", "slave",
			"link-pending-commands", "0", "link-refcount", "1", "last-ping-sent", "0", "last-ok-ping-reply", lag,
			"last-ping-reply", lag, "down-after-milliseconds", "5000", "info-refresh", lag, "role-reported", "slave",
			"role-reported-time", "0", "master-link-down-time", "0", "master-link-status", "ok",
			"master-host", "10.0.0.1", "master-port", "6001", "slave-priority", "100", "slave-repl-offset", off,
			"replica-announced", "1"}
	}
	wantReps := append(wantRep(id2, "10.0.0.2:6002", "10.0.0.2", "6002", "0", "40"), wantRep(id3, "10.0.0.3:6003", "10.0.0.3", "6003", "0", "41")...)
	if strings.Join(reps, " ") != strings.Join(wantReps, " ") {
		t.Fatalf("SENTINEL REPLICAS =\n%q\nwant\n%q", reps, wantReps)
	}
	if got := fields(te.Do(cl, conn, "SENTINEL", "SLAVES", "mymaster")); strings.Join(got, " ") != strings.Join(wantReps, " ") {
		t.Fatalf("SENTINEL SLAVES = %q", got)
	}
	// The other nodes are the other Sentinels.
	sents := fields(te.Do(cl, conn, "SENTINEL", "SENTINELS", "mymaster"))
	wantSent := func(id, ip, port, lag string) []string {
		return []string{"name", id, "ip", ip, "port", port, "runid", id, "flags", "sentinel",
			"link-pending-commands", "0", "link-refcount", "1", "last-ping-sent", "0", "last-ok-ping-reply", lag,
			"last-ping-reply", lag, "down-after-milliseconds", "5000", "last-hello-message", lag,
			"voted-leader", "?", "voted-leader-epoch", "0"}
	}
	wantSents := append(wantSent(id1, "10.0.0.1", "6001", "80"), wantSent(id3, "10.0.0.3", "6003", "0")...)
	if strings.Join(sents, " ") != strings.Join(wantSents, " ") {
		t.Fatalf("SENTINEL SENTINELS =\n%q\nwant\n%q", sents, wantSents)
	}

	// The leader goes quiet and no leader is known: the master is shown
	// down, and named until a new leader is known, as Sentinel names the
	// old master until its failover completes.
	fc.LeaderID = ""
	te.Advance(3e9)
	te.Expect(cl, conn, "*2\r\n"+bulk("10.0.0.1")+bulk("6001"), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	master = fields(te.Do(cl, conn, "SENTINEL", "MASTER", "mymaster"))
	if master[9] != "s_down,o_down,master" || master[20] != "s-down-time" || master[22] != "o-down-time" {
		t.Fatalf("SENTINEL MASTER with the leader gone = %q", master)
	}
	fc.LeaderID = "n3"
	te.Expect(cl, conn, "*2\r\n"+bulk("10.0.0.3")+bulk("6003"), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	te.E.Config.SentinelMasterName = "locks"
	fc.LeaderID = "n1"
	te.Expect(cl, conn, "*-1\r\n", "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	te.Expect(cl, conn, "*2\r\n"+bulk("10.0.0.1")+bulk("6001"), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "locks")
}

func TestSentinelCkquorumFails(t *testing.T) {
	fc := enginetest.NewFakeCluster("n1")
	fc.Members[1].LagMs = 9000
	fc.Members[2].LagMs = -1 // never heard: the leader counts it down
	te := enginetest.NewCluster(t, fc)
	cl, conn := te.Client()
	te.Expect(cl, conn, "-NOQUORUM 1 usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master. Not enough available Sentinels to reach the majority and authorize a failover\r\n", "SENTINEL", "CKQUORUM", "mymaster")
	// The leader shows the unreachable followers as failing.
	out := te.Do(cl, conn, "CLUSTER", "NODES")
	if !strings.Contains(out, "slave,fail? "+NodeID("n1")+" 0 ") || !strings.Contains(out, " disconnected\n") {
		t.Fatalf("CLUSTER NODES = %q", out)
	}
	te.Expect(cl, conn, "*1\r\n*3\r\n:0\r\n:16383\r\n*4\r\n"+bulk("10.0.0.1")+":6001\r\n"+bulk(NodeID("n1"))+"*0\r\n", "CLUSTER", "SLOTS")
	if out := te.Do(cl, conn, "ROLE"); out != "*3\r\n"+bulk("master")+":42\r\n*0\r\n" {
		t.Fatalf("ROLE = %q", out)
	}
}

func TestLeaderChangedPublishes(t *testing.T) {
	fc := enginetest.NewFakeCluster("n2")
	te := enginetest.NewCluster(t, fc)
	sub, subConn := te.Client()
	psub, psubConn := te.Client()
	te.Do(sub, subConn, "SUBSCRIBE", "+switch-master")
	te.Do(psub, psubConn, "PSUBSCRIBE", "+*")
	n := fc.Nodes()
	// The first leader, reported before its address is known: nothing to
	// switch from; its address is looked up when the next leader comes.
	te.E.LeaderChanged(engine.Node{}, engine.Node{ID: "n1"})
	te.E.FlushOutputs()
	if len(subConn.Out) != 0 {
		t.Fatalf("first leader published %q", subConn.Out)
	}
	te.E.LeaderChanged(n[0], engine.Node{}) // election
	te.E.LeaderChanged(engine.Node{}, n[2]) // n3 wins: switch from n1
	te.E.FlushOutputs()
	msg := "mymaster 10.0.0.1 6001 10.0.0.3 6003"
	if want := "*3\r\n" + bulk("message") + bulk("+switch-master") + bulk(msg); string(subConn.Out) != want {
		t.Fatalf("subscriber got %q, want %q", subConn.Out, want)
	}
	if want := "*4\r\n" + bulk("pmessage") + bulk("+*") + bulk("+switch-master") + bulk(msg); string(psubConn.Out) != want {
		t.Fatalf("pattern subscriber got %q, want %q", psubConn.Out, want)
	}
	subConn.Out = subConn.Out[:0]
	te.E.LeaderChanged(n[2], n[2]) // no change
	te.E.LeaderChanged(n[2], n[1])
	te.E.FlushOutputs()
	if want := "*3\r\n" + bulk("message") + bulk("+switch-master") + bulk("mymaster 10.0.0.3 6003 10.0.0.2 6002"); string(subConn.Out) != want {
		t.Fatalf("subscriber got %q, want %q", subConn.Out, want)
	}
}

func TestInfoReplicationCluster(t *testing.T) {
	fc := enginetest.NewFakeCluster("n1")
	fc.Members[2].LagMs = 7000 // unreachable: not a connected slave
	te := enginetest.NewCluster(t, fc)
	cl, conn := te.Client()
	out := te.Do(cl, conn, "INFO", "replication")
	want := "# Replication\r\nrole:master\r\nconnected_slaves:1\r\n" +
		"slave0:ip=10.0.0.2,port=6002,state=online,offset=40,lag=0\r\n" +
		"master_failover_state:no-failover\r\nmaster_replid:" + te.E.RunID + "\r\n" +
		"master_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:42\r\n" +
		"second_repl_offset:-1\r\nrepl_backlog_active:1\r\nrepl_backlog_size:1048576\r\n" +
		"repl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:42\r\n" +
		"raft_node_id:n1\r\nraft_cluster_id:5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e\r\nraft_state:leader\r\nraft_term:7\r\nraft_leader_id:n1\r\nraft_leader_addr:10.0.0.1:7001\r\n" +
		"raft_last_log_index:42\r\nraft_commit_index:42\r\nraft_applied_index:42\r\nraft_first_index:1\r\n" +
		"raft_last_snapshot_index:0\r\n" +
		"raft_peer0:id=n1,raft_addr=10.0.0.1:7001,client_addr=10.0.0.1:6001,voter=1,leader=1,match_index=42,applied_index=42,lag_ms=0,last_contact_ms=0\r\n" +
		"raft_peer1:id=n2,raft_addr=10.0.0.2:7002,client_addr=10.0.0.2:6002,voter=1,leader=0,match_index=40,applied_index=39,lag_ms=35,last_contact_ms=120\r\n" +
		"raft_peer2:id=n3,raft_addr=10.0.0.3:7003,client_addr=10.0.0.3:6003,voter=1,leader=0,match_index=41,applied_index=41,lag_ms=0,last_contact_ms=7000\r\n"
	if out != bulk(want) {
		t.Fatalf("INFO replication on the leader =\n%s\nwant\n%s", out, want)
	}
	if out := te.Do(cl, conn, "ROLE"); out != "*3\r\n"+bulk("master")+":42\r\n*1\r\n*3\r\n"+bulk("10.0.0.2")+bulk("6002")+bulk("40") {
		t.Fatalf("ROLE on the leader = %q", out)
	}
	if out := te.Do(cl, conn, "HELLO", "3"); !strings.Contains(out, bulk("mode")+bulk("cluster")+bulk("role")+bulk("master")) {
		t.Fatalf("HELLO on the leader = %q", out)
	}

	// A follower.
	fc.SelfID = "n2"
	fc.Members[0].LagMs = 2300
	// A follower knows its own progress only.
	fc.Members[0].Progress, fc.Members[2].Progress = false, false
	fc.State = engine.ClusterStatus{State: "follower", Term: 7, LastLogIndex: 40, CommitIndex: 40, AppliedIndex: 39, FirstIndex: 1}
	cl2, conn2 := te.Client()
	out = te.Do(cl2, conn2, "INFO", "replication")
	wantHead := "# Replication\r\nrole:slave\r\nmaster_host:10.0.0.1\r\nmaster_port:6001\r\nmaster_link_status:up\r\n" +
		"master_last_io_seconds_ago:2\r\nmaster_sync_in_progress:0\r\nslave_read_repl_offset:39\r\nslave_repl_offset:39\r\n" +
		"slave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1\r\nconnected_slaves:0\r\n" +
		"master_failover_state:no-failover\r\n"
	if !strings.Contains(out, wantHead) || !strings.Contains(out, "master_repl_offset:39\r\n") || !strings.Contains(out, "raft_state:follower\r\n") {
		t.Fatalf("INFO replication on a follower =\n%s\nwant it to start\n%s", out, wantHead)
	}
	for _, line := range []string{
		"raft_peer0:id=n1,raft_addr=10.0.0.1:7001,client_addr=10.0.0.1:6001,voter=1,leader=1,progress=leader_only,last_contact_ms=2300\r\n",
		"raft_peer1:id=n2,raft_addr=10.0.0.2:7002,client_addr=10.0.0.2:6002,voter=1,leader=0,match_index=40,applied_index=39,lag_ms=35,last_contact_ms=120\r\n",
		"raft_peer2:id=n3,raft_addr=10.0.0.3:7003,client_addr=10.0.0.3:6003,voter=1,leader=0,progress=leader_only,last_contact_ms=7000\r\n",
	} {
		if !strings.Contains(out, line) {
			t.Fatalf("INFO replication on a follower =\n%s\nwant the line %q", out, line)
		}
	}
	if out := te.Do(cl2, conn2, "ROLE"); out != "*5\r\n"+bulk("slave")+bulk("10.0.0.1")+":6001\r\n"+bulk("connected")+":39\r\n" {
		t.Fatalf("ROLE on a follower = %q", out)
	}
	if out := te.Do(cl2, conn2, "HELLO", "3"); !strings.Contains(out, bulk("role")+bulk("replica")) {
		t.Fatalf("HELLO on a follower = %q", out)
	}
	// The leader unheard for long: the link is down.
	fc.Members[0].LagMs = 6000
	out = te.Do(cl2, conn2, "INFO", "replication")
	if !strings.Contains(out, "master_link_status:down\r\nmaster_last_io_seconds_ago:6\r\n") || !strings.Contains(out, "master_link_down_since_seconds:6\r\n") {
		t.Fatalf("INFO replication, link down =\n%s", out)
	}
}

// parseRESP flattens a reply of arrays, maps, bulk strings and integers
// into its scalar values, in order.
func parseRESP(s string) ([]string, string, error) {
	var out []string
	var one func() error
	one = func() error {
		i := strings.Index(s, "\r\n")
		if i < 1 {
			return fmt.Errorf("truncated at %q", s)
		}
		head, body := s[:i], s[i+2:]
		s = body
		var n int
		switch head[0] {
		case '*', '%':
			fmt.Sscan(head[1:], &n)
			if head[0] == '%' {
				n *= 2
			}
			for j := 0; j < n; j++ {
				if err := one(); err != nil {
					return err
				}
			}
		case '$':
			fmt.Sscan(head[1:], &n)
			out = append(out, s[:n])
			s = s[n+2:]
		case ':', '+':
			out = append(out, head[1:])
		default:
			return fmt.Errorf("unexpected %q", head)
		}
		return nil
	}
	for s != "" {
		if err := one(); err != nil {
			return nil, s, err
		}
	}
	return out, s, nil
}
