package conformance

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/admin"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
)

// Leader discovery. A standalone lockkv answers CLUSTER, READONLY and
// SENTINEL as a standalone Redis (parity with the suite's redis-server).
// In cluster mode lockkv presents its Raft cluster as a Redis Cluster
// shard and as a Sentinel; those formats are checked here against a real
// cluster-enabled redis-server (a master and its replica) and a real
// redis-sentinel, with a lockkv engine whose cluster (a fake
// engine.Cluster) has the same shape and addresses. Node IDs differ
// (lockkv's are SHA-1 of the Raft ID), so Redis's are replaced by lockkv's
// before comparing; what Redis measures by the clock (pong times, ping
// replies, replication offsets) is masked.

func TestClusterStandalone(t *testing.T) {
	p := NewPair(t)
	for _, sub := range []string{"INFO", "SLOTS", "NODES", "MYID", "SHARDS", "HELP", "LINKS", "FLUSHSLOTS", "BUMPEPOCH", "SAVECONFIG"} {
		p.Do("CLUSTER", sub)
		p.Do("cluster", strings.ToLower(sub), "extra")
	}
	p.Do("CLUSTER", "KEYSLOT", "x")
	p.Do("CLUSTER", "KEYSLOT")
	p.Do("CLUSTER", "COUNTKEYSINSLOT", "1")
	p.Do("CLUSTER", "COUNTKEYSINSLOT", "x")
	p.Do("CLUSTER", "GETKEYSINSLOT", "1", "1")
	p.Do("CLUSTER", "GETKEYSINSLOT", "1")
	p.Do("CLUSTER", "REPLICAS", "x")
	p.Do("CLUSTER", "SLAVES", "x")
	p.Do("CLUSTER", "REPLICAS")
	p.Do("CLUSTER", "ADDSLOTS", "1")
	p.Do("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
	p.Do("CLUSTER", "MEET", "127.0.0.1", "1")
	p.Do("CLUSTER", "FAILOVER")
	p.Do("CLUSTER", "RESET")
	p.Do("CLUSTER", "SETSLOT", "1", "STABLE")
	p.Do("CLUSTER", "NOSUCH")
	p.Do("CLUSTER")
	p.Do("READONLY")
	p.Do("READONLY", "x")
	p.Do("READWRITE")
	p.Do("READWRITE", "x")
	p.Do("ASKING")
	for _, args := range [][]string{
		{"SENTINEL"}, {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"}, {"SENTINEL", "MASTERS"},
		{"SENTINEL", "SENTINELS", "mymaster"}, {"SENTINEL", "REPLICAS", "mymaster"}, {"SENTINEL", "MYID"},
		{"SENTINEL", "HELP"}, {"sentinel", "nosuch"},
	} {
		p.Do(args...)
	}
	p.Do("COMMAND", "INFO", "sentinel", "cluster|slots", "sentinel|masters", "readonly")
	p.Do("COMMAND", "LIST", "FILTERBY", "PATTERN", "sentinel*")
	p.Do("COMMAND", "DOCS", "sentinel")
	p.Do("EVAL", "return redis.pcall('sentinel', 'masters')", "0")
	p.Do("EVAL", "return redis.pcall('cluster', 'info')", "0")
	p.Do("MULTI")
	p.Do("SENTINEL", "MASTERS")
	p.Do("EXEC")
	p.infoMatches([]string{"INFO", "cluster"}, "cluster_enabled")
	p.Do("HELLO", "3")
	p.Do("CLUSTER", "INFO")
	p.Do("SENTINEL", "MASTERS")
}

// engineClient runs commands on an in-process engine as one client.
type engineClient struct {
	te   *enginetest.Engine
	cl   *engine.Client
	conn *enginetest.Conn
}

func newEngineClient(t *testing.T, cluster engine.Cluster) *engineClient {
	t.Helper()
	te := enginetest.NewWith(t, engine.Options{Clock: testutil.SystemClock{}, Replication: &engine.Replication{Cluster: cluster}})
	cl, conn := te.Client()
	return &engineClient{te: te, cl: cl, conn: conn}
}

func (c *engineClient) Do(args ...string) Value {
	c.te.T.Helper()
	out := c.te.Do(c.cl, c.conn, args...)
	r := bufio.NewReader(strings.NewReader(out))
	v, err := testutil.ReadValue(r)
	if err != nil || r.Buffered() != 0 {
		c.te.T.Fatalf("%v: bad reply %q: %v", args, out, err)
	}
	return v
}

// startRedisServer runs a redis-server with extra arguments in a fresh
// directory on a free port, stopped when the test ends. It skips the test
// when the binary is missing.
func startRedisServer(t *testing.T, bin string, extra ...string) (addr string, port int) {
	t.Helper()
	path, err := exec.LookPath(bin)
	sentinelMode := false
	if err != nil && bin == "redis-sentinel" {
		// redis-sentinel is redis-server in Sentinel mode.
		path, err = exec.LookPath("redis-server")
		sentinelMode = true
	}
	if err != nil {
		t.Skipf("%s not found on PATH: install redis-server and redis-sentinel", bin)
	}
	port = testnet.FreePort(t)
	dir := t.TempDir()
	var cmd *exec.Cmd
	if bin == "redis-sentinel" {
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\n%s\n", port, dir, strings.Join(extra, "\n"))
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(path, conf)
		if sentinelMode {
			cmd.Args = append(cmd.Args, "--sentinel")
		}
	} else {
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log")}, extra...)
		cmd = exec.Command(path, args...)
	}
	cmd.SysProcAttr = testutil.ChildProcAttr(true)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	testutil.Eventually(t, 10*time.Second, func() error { return testutil.Ping(addr) })
	return addr, port
}

// infoField returns field's value in an INFO-style text.
func infoField(text, field string) string {
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// rewrite returns v with every string transformed by f.
func rewrite(v Value, f func(string) string) Value {
	v.Str = f(v.Str)
	if v.Elems != nil {
		els := make([]Value, len(v.Elems))
		for i, e := range v.Elems {
			els[i] = rewrite(e, f)
		}
		v.Elems = els
	}
	return v
}

// maskMapValues replaces the value of each named field of every map (or
// RESP2 flat map) inside v with "*".
func maskMapValues(v Value, names ...string) Value {
	if v.Elems == nil {
		return v
	}
	els := make([]Value, len(v.Elems))
	copy(els, v.Elems)
	for i := range els {
		els[i] = maskMapValues(els[i], names...)
	}
	for i := 0; i+1 < len(els); i++ {
		for _, n := range names {
			if (els[i].Kind == '$' || els[i].Kind == '+') && els[i].Str == n && els[i+1].Elems == nil {
				els[i+1] = Value{Kind: '$', Str: "*"}
			}
		}
	}
	v.Elems = els
	return v
}

// nodesLines splits CLUSTER NODES text into sorted lines with the
// ping-sent and pong-received fields (5th and 6th) of other nodes masked.
func nodesLines(text string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		f := strings.Split(line, " ")
		if len(f) > 5 && !strings.Contains(f[2], "myself") {
			f[4], f[5] = "*", "*"
		}
		out = append(out, strings.Join(f, " "))
	}
	sort.Strings(out)
	return out
}

func TestClusterFormatsAgainstRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	// A cluster-enabled master owning every slot and its replica.
	// The bus ports are chosen as the client ports are (testnet): port+10000,
	// Redis's default, may be in the ephemeral range and taken.
	mBus, rBus := testnet.FreePort(t), testnet.FreePort(t)
	mAddr, _ := startRedisServer(t, "redis-server", "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(mBus), "--cluster-announce-ip", "127.0.0.1", "--cluster-node-timeout", "5000")
	rAddr, rPort := startRedisServer(t, "redis-server", "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(rBus), "--cluster-announce-ip", "127.0.0.1", "--cluster-node-timeout", "5000")
	m, r := testutil.MustDial(t, mAddr), testutil.MustDial(t, rAddr)
	m.MustDo(t, "CLUSTER", "ADDSLOTSRANGE", "0", "16383")
	m.MustDo(t, "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(rPort), strconv.Itoa(rBus))
	mID, rID := m.MustDo(t, "CLUSTER", "MYID").Str, r.MustDo(t, "CLUSTER", "MYID").Str
	testutil.Eventually(t, 20*time.Second, func() error {
		if v := r.MustDo(t, "CLUSTER", "NODES"); !strings.Contains(v.Str, mID) {
			return fmt.Errorf("the replica does not know the master: %v", v)
		}
		return nil
	})
	r.MustDo(t, "CLUSTER", "REPLICATE", mID)
	testutil.Eventually(t, 30*time.Second, func() error {
		sl := m.MustDo(t, "CLUSTER", "SLOTS")
		if len(sl.Elems) == 1 && len(sl.Elems[0].Elems) == 4 &&
			infoField(m.MustDo(t, "CLUSTER", "INFO").Str, "cluster_state") == "ok" &&
			infoField(r.MustDo(t, "CLUSTER", "INFO").Str, "cluster_state") == "ok" &&
			strings.Contains(r.MustDo(t, "CLUSTER", "SHARDS").String(), `"replica", "replication-offset", :`) &&
			!strings.Contains(m.MustDo(t, "CLUSTER", "SHARDS").String(), `"loading"`) {
			return nil
		}
		return fmt.Errorf("the replica not in sync or a node not ok: CLUSTER SLOTS %v", sl)
	})
	epoch, _ := strconv.ParseUint(infoField(m.MustDo(t, "CLUSTER", "INFO").Str, "cluster_current_epoch"), 10, 64)

	// The same cluster in lockkv: n1 leads at the master's address, n2
	// follows at the replica's; the Raft ports are Redis's bus ports.
	fc := &enginetest.FakeCluster{SelfID: "n1", LeaderID: "n1", Members: []engine.Node{
		{ID: "n1", ClientAddr: mAddr, RaftAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(mBus)), Voter: true, LagMs: 0},
		{ID: "n2", ClientAddr: rAddr, RaftAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(rBus)), Voter: true, LagMs: 10},
	}, State: engine.ClusterStatus{State: "leader", Term: epoch}}
	lk := newEngineClient(t, fc)
	ids := strings.NewReplacer(mID, admin.NodeID("n1"), rID, admin.NodeID("n2"))
	same := func(what string, l, rv Value) {
		t.Helper()
		rv = rewrite(rv, ids.Replace)
		comparisons.Add(1)
		if !Equal(l, rv) {
			divergences.Add(1)
			t.Errorf("%s:\n lockkv: %s\n  redis: %s", what, l, rv)
		}
	}
	keys := []string{"foo", "{foo}x", "bar", "user:1000", "{user1000}.following", "a{}b", "a{b}{c}", "", "{", "}{x}", "\x00\xff"}
	for _, proto := range []string{"2", "3"} {
		m.MustDo(t, "HELLO", proto)
		r.MustDo(t, "HELLO", proto)
		lk.Do("HELLO", proto)
		for _, side := range []struct {
			self string
			c    *Conn
		}{{"n1", m}, {"n2", r}} {
			fc.SelfID = side.self
			pfx := "RESP" + proto + " " + side.self + " "
			for _, args := range [][]string{
				{"CLUSTER", "SLOTS"}, {"CLUSTER", "MYID"}, {"CLUSTER", "HELP"},
				{"CLUSTER", "REPLICAS", mID}, {"CLUSTER", "REPLICAS", rID}, {"CLUSTER", "REPLICAS", "nosuch"},
				{"CLUSTER", "SLAVES", mID}, {"READONLY"}, {"READWRITE"}, {"ASKING"},
				{"CLUSTER", "COUNTKEYSINSLOT", "16384"}, {"CLUSTER", "COUNTKEYSINSLOT", "-1"}, {"CLUSTER", "COUNTKEYSINSLOT", "x"},
				{"CLUSTER", "GETKEYSINSLOT", "0", "-1"}, {"CLUSTER", "GETKEYSINSLOT", "16384", "1"},
				{"CLUSTER", "GETKEYSINSLOT", "x", "1"}, {"CLUSTER", "GETKEYSINSLOT", "0", "x"},
				{"CLUSTER", "GETKEYSINSLOT", "0", "0"}, {"CLUSTER", "KEYSLOT"}, {"CLUSTER", "INFO", "x"},
				{"CLUSTER", "NOSUCH"}, {"INFO", "cluster"},
			} {
				a := make([]string, len(args))
				for i, s := range args {
					a[i] = ids.Replace(s)
				}
				rv := side.c.MustDo(t, args...)
				if len(args) > 1 && (args[1] == "REPLICAS" || args[1] == "SLAVES") {
					// Lines of CLUSTER NODES: pong times masked.
					for i, e := range rv.Elems {
						rv.Elems[i].Str = nodesLines(e.Str)[0]
					}
					lv := lk.Do(a...)
					for i, e := range lv.Elems {
						lv.Elems[i].Str = nodesLines(e.Str)[0]
					}
					same(pfx+strings.Join(args, " "), lv, rv)
					continue
				}
				same(pfx+strings.Join(args, " "), lk.Do(a...), rv)
			}
			for _, k := range keys {
				same(pfx+"CLUSTER KEYSLOT "+strconv.Quote(k), lk.Do("CLUSTER", "KEYSLOT", k), side.c.MustDo(t, "CLUSTER", "KEYSLOT", k))
			}
			// SHARDS with the replication offsets masked.
			same(pfx+"CLUSTER SHARDS", maskMapValues(lk.Do("CLUSTER", "SHARDS"), "replication-offset"),
				maskMapValues(side.c.MustDo(t, "CLUSTER", "SHARDS"), "replication-offset"))
			// NODES as sorted lines with other nodes' pong times masked.
			lv, rv := lk.Do("CLUSTER", "NODES"), side.c.MustDo(t, "CLUSTER", "NODES")
			if lv.Kind != rv.Kind {
				t.Errorf("%sCLUSTER NODES: type %c, redis %c", pfx, lv.Kind, rv.Kind)
			}
			lt, rt := strings.TrimPrefix(lv.Str, "txt:"), strings.TrimPrefix(rv.Str, "txt:")
			ll, rl := nodesLines(lt), nodesLines(ids.Replace(rt))
			if lv.Str[:len(lv.Str)-len(lt)] != rv.Str[:len(rv.Str)-len(rt)] || strings.Join(ll, "\n") != strings.Join(rl, "\n") || !strings.HasSuffix(lv.Str, "\n") {
				t.Errorf("%sCLUSTER NODES:\n lockkv: %q\n  redis: %q", pfx, ll, rl)
			}
			// CLUSTER INFO: the same fields in the same order; Redis counts
			// its bus messages, lockkv has none.
			li, ri := lk.Do("CLUSTER", "INFO"), side.c.MustDo(t, "CLUSTER", "INFO")
			if li.Kind != ri.Kind || infoShape(li.Str) != infoShape(ri.Str) {
				t.Errorf("%sCLUSTER INFO:\n lockkv: %q\n  redis: %q", pfx, li.Str, ri.Str)
			}
			for _, f := range []string{"cluster_state", "cluster_slots_assigned", "cluster_slots_ok", "cluster_known_nodes", "cluster_size", "cluster_current_epoch", "cluster_my_epoch"} {
				if infoField(li.Str, f) != infoField(ri.Str, f) {
					t.Errorf("%sCLUSTER INFO %s: lockkv %q, redis %q", pfx, f, infoField(li.Str, f), infoField(ri.Str, f))
				}
			}
			// ROLE and INFO replication have Redis's shape (offsets differ).
			lr, rr := lk.Do("ROLE"), side.c.MustDo(t, "ROLE")
			if !sameShape(lr, rr) || lr.Elems[0].Str != rr.Elems[0].Str {
				t.Errorf("%sROLE: lockkv %s, redis %s", pfx, lr, rr)
			}
			lrep, rrep := lk.Do("INFO", "replication").Str, side.c.MustDo(t, "INFO", "replication").Str
			if lf, rf := infoFieldNames(lrep), infoFieldNames(rrep); !strings.HasPrefix(lf, rf) {
				t.Errorf("%sINFO replication fields:\n lockkv: %s\n  redis: %s", pfx, lf, rf)
			}
			for _, f := range []string{"role", "connected_slaves", "master_host", "master_port", "master_link_status", "slave_read_only"} {
				if infoField(lrep, f) != infoField(rrep, f) {
					t.Errorf("%sINFO replication %s: lockkv %q, redis %q", pfx, f, infoField(lrep, f), infoField(rrep, f))
				}
			}
		}
	}

	// Keys in slots: the same keys on the master and in lockkv.
	m.MustDo(t, "HELLO", "2")
	lk.Do("HELLO", "2")
	fc.SelfID = "n1"
	for _, k := range []string{"foo", "{foo}x", "{foo}y", "bar", "user:1"} {
		m.MustDo(t, "SET", k, "v")
		lk.Do("SET", k, "v")
	}
	for _, slot := range []string{"12182", "5061", "0"} {
		same("CLUSTER COUNTKEYSINSLOT "+slot, lk.Do("CLUSTER", "COUNTKEYSINSLOT", slot), m.MustDo(t, "CLUSTER", "COUNTKEYSINSLOT", slot))
		same("CLUSTER GETKEYSINSLOT "+slot, lk.Do("CLUSTER", "GETKEYSINSLOT", slot, "10").Sorted(), m.MustDo(t, "CLUSTER", "GETKEYSINSLOT", slot, "10").Sorted())
	}
}

// infoShape is an INFO-style text with the values of counters lockkv does
// not have removed: the field names in order.
func infoShape(text string) string {
	var names []string
	for _, line := range strings.Split(text, "\r\n") {
		name, _, _ := strings.Cut(line, ":")
		if strings.HasPrefix(name, "cluster_stats_messages_") && name != "cluster_stats_messages_sent" && name != "cluster_stats_messages_received" {
			continue
		}
		names = append(names, name)
	}
	return strings.Join(names, ",")
}

// infoFieldNames lists an INFO text's field names, in order.
func infoFieldNames(text string) string {
	var names []string
	for _, line := range strings.Split(text, "\r\n") {
		if name, _, ok := strings.Cut(line, ":"); ok {
			names = append(names, name)
		}
	}
	return strings.Join(names, ",")
}

// flatFields returns the field names and values of a Sentinel instance
// reply (a map, or a flat array under RESP2).
func flatFields(v Value) (names []string, vals map[string]string) {
	vals = map[string]string{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		names = append(names, v.Elems[i].Str)
		vals[v.Elems[i].Str] = v.Elems[i+1].Str
	}
	return names, vals
}

func TestSentinelFormatsAgainstRedisSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Redis Sentinels")
	}
	mAddr, mPort := startRedisServer(t, "redis-server")
	rAddr, _ := startRedisServer(t, "redis-server", "--replicaof", "127.0.0.1", strconv.Itoa(mPort))
	monitor := []string{fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 2", mPort), "sentinel down-after-milliseconds mymaster 5000"}
	sAddr, _ := startRedisServer(t, "redis-sentinel", monitor...)
	startRedisServer(t, "redis-sentinel", monitor...)
	s := testutil.MustDial(t, sAddr)
	testutil.Eventually(t, 30*time.Second, func() error {
		reps := s.MustDo(t, "SENTINEL", "REPLICAS", "mymaster")
		sents := s.MustDo(t, "SENTINEL", "SENTINELS", "mymaster")
		if len(reps.Elems) != 1 || len(sents.Elems) != 1 {
			return fmt.Errorf("the sentinel knows replicas %v and sentinels %v", reps, sents)
		}
		if _, rv := flatFields(reps.Elems[0]); rv["master-link-status"] != "ok" || rv["flags"] != "slave" {
			return fmt.Errorf("the replica is %v", reps.Elems[0])
		}
		return nil
	})

	// lockkv: n1 leads at the master's address, n2 (a non-voter) follows
	// at the replica's, n3 (a voter, answering) at the sentinel's. Two
	// voters: a quorum of 2, as configured in the Sentinels.
	fc := &enginetest.FakeCluster{SelfID: "n3", LeaderID: "n1", Members: []engine.Node{
		{ID: "n1", ClientAddr: mAddr, RaftAddr: "127.0.0.1:1", Voter: true, LagMs: 5},
		{ID: "n2", ClientAddr: rAddr, RaftAddr: "127.0.0.1:2", LagMs: -1},
		{ID: "n3", ClientAddr: sAddr, RaftAddr: "127.0.0.1:3", Voter: true},
	}, State: engine.ClusterStatus{State: "follower", Term: 1}}
	lk := newEngineClient(t, fc)
	same := func(what string, l, r Value) {
		t.Helper()
		comparisons.Add(1)
		if !Equal(l, r) {
			divergences.Add(1)
			t.Errorf("%s:\n lockkv: %s\n  redis: %s", what, l, r)
		}
	}
	// Fields whose values are measurements or identities of the instance.
	measured := map[string]bool{
		"runid": true, "last-ping-sent": true, "last-ok-ping-reply": true, "last-ping-reply": true,
		"info-refresh": true, "role-reported-time": true, "config-epoch": true, "num-slaves": true,
		"num-other-sentinels": true, "slave-repl-offset": true, "last-hello-message": true,
		"master-link-down-time": true, "link-refcount": true,
	}
	sameInstance := func(what string, l, r Value, alsoMask ...string) {
		t.Helper()
		comparisons.Add(1)
		ln, lv := flatFields(l)
		rn, rv := flatFields(r)
		ok := l.Kind == r.Kind && strings.Join(ln, ",") == strings.Join(rn, ",")
		for _, n := range rn {
			mask := measured[n]
			for _, m := range alsoMask {
				mask = mask || m == n
			}
			if !mask && lv[n] != rv[n] {
				ok = false
			}
		}
		if !ok {
			divergences.Add(1)
			t.Errorf("%s:\n lockkv: %s\n  redis: %s", what, l, r)
		}
	}
	for _, proto := range []string{"2", "3"} {
		s.MustDo(t, "HELLO", proto)
		lk.Do("HELLO", proto)
		pfx := "RESP" + proto + " "
		for _, args := range [][]string{
			{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"}, {"SENTINEL", "get-master-addr-by-name", "nosuch"},
			{"SENTINEL", "GET-MASTER-ADDR-BY-NAME"}, {"SENTINEL", "MASTER", "nosuch"}, {"SENTINEL", "REPLICAS", "nosuch"},
			{"SENTINEL", "SLAVES", "nosuch"}, {"SENTINEL", "SENTINELS", "nosuch"}, {"SENTINEL", "CKQUORUM", "nosuch"},
			{"SENTINEL", "CKQUORUM", "mymaster"}, {"SENTINEL", "MASTERS", "x"}, {"SENTINEL", "MYID", "x"},
			{"SENTINEL", "MASTER"}, {"SENTINEL", "HELP"}, {"SENTINEL", "nosuch"}, {"SENTINEL"},
			{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", strconv.Itoa(mPort), "0", "*"},
			{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", strconv.Itoa(mPort), "x", "*"},
			{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "x", "0", "*"},
			{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1"},
			{"SENTINEL", "PENDING-SCRIPTS"},
		} {
			same(pfx+strings.Join(args, " "), lk.Do(args...), s.MustDo(t, args...))
		}
		if l, r := lk.Do("SENTINEL", "MYID"), s.MustDo(t, "SENTINEL", "MYID"); l.Kind != r.Kind || len(l.Str) != len(r.Str) {
			t.Errorf("SENTINEL MYID: lockkv %s, redis %s", l, r)
		}
		sameInstance(pfx+"SENTINEL MASTER", lk.Do("SENTINEL", "MASTER", "mymaster"), s.MustDo(t, "SENTINEL", "MASTER", "mymaster"))
		lm, rm := lk.Do("SENTINEL", "MASTERS"), s.MustDo(t, "SENTINEL", "MASTERS")
		if len(lm.Elems) != 1 || len(rm.Elems) != 1 {
			t.Fatalf("SENTINEL MASTERS: lockkv %s, redis %s", lm, rm)
		}
		sameInstance(pfx+"SENTINEL MASTERS", lm.Elems[0], rm.Elems[0])
		for _, sub := range []string{"REPLICAS", "SLAVES"} {
			l, r := lk.Do("SENTINEL", sub, "mymaster"), s.MustDo(t, "SENTINEL", sub, "mymaster")
			if len(l.Elems) != 2 || len(r.Elems) != 1 {
				t.Fatalf("SENTINEL %s: lockkv %s, redis %s", sub, l, r)
			}
			sameInstance(pfx+"SENTINEL "+sub, l.Elems[0], r.Elems[0])
		}
		l, r := lk.Do("SENTINEL", "SENTINELS", "mymaster"), s.MustDo(t, "SENTINEL", "SENTINELS", "mymaster")
		if len(l.Elems) != 2 || len(r.Elems) != 1 {
			t.Fatalf("SENTINEL SENTINELS: lockkv %s, redis %s", l, r)
		}
		sameInstance(pfx+"SENTINEL SENTINELS", l.Elems[0], r.Elems[0], "name", "ip", "port")
	}
}
