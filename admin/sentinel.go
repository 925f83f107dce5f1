package admin

import (
	"fmt"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/redisnum"
)

// SENTINEL: in cluster mode every node also answers as a Redis Sentinel
// monitoring one master, the Raft leader, under the name
// Config.SentinelMasterName ("mymaster" by default). Sentinel-aware clients
// (go-redis FailoverClient, Redisson's sentinel mode) list any nodes as
// their sentinels and find the leader with SENTINEL
// GET-MASTER-ADDR-BY-NAME; SENTINEL SENTINELS names the other nodes, so
// they discover the rest of the cluster; the engine publishes
// "+switch-master" when the leader changes (LeaderChanged), so they switch
// at once.
//
// Replies have Sentinel 7.0's shape and field names
// (addReplySentinelRedisInstance), checked against redis-sentinel 7.0.15.
// What Sentinel measures by pinging, lockkv takes from Raft: "last ping
// reply" and "info refresh" are how long ago the node was last heard from
// (Node.LagMs), a node unheard for linkDownMs is s_down, the config epoch
// is the Raft term, replication offsets are Raft log indexes, and the
// quorum is a majority of the voters. lockkv never runs a Sentinel
// election: IS-MASTER-DOWN-BY-ADDR never votes, and the subcommands that
// reconfigure a Sentinel (MONITOR, SET, FAILOVER, ...) are refused; Raft
// membership changes through RAFT.NODE.
//
// On a standalone server SENTINEL is an unknown command, as on Redis.

var sentinelCommands = []*engine.Spec{
	{Name: "sentinel", Arity: -2, Flags: engine.Admin | engine.Sentinel, ClusterOnly: true, Sub: sentinelSubs()},
}

func init() { engine.Register(sentinelCommands) }

func sentinelSubs() []*engine.Spec {
	// local is NodeLocal: the answer is this node's view of the cluster
	// (its ID, the leader and the links as it sees them, its
	// sentinel-master-name); the others answer alike on every node.
	const local = true
	subs := []struct {
		name  string
		arity int
		local bool
		fn    engine.Handler
	}{
		{"ckquorum", 3, local, sentinelCkquorum}, {"config", -3, false, nil}, {"debug", -2, false, nil},
		{"failover", 3, false, nil}, {"flushconfig", 2, false, nil},
		{"get-master-addr-by-name", 3, local, sentinelGetMasterAddr},
		{"info-cache", -3, false, nil}, {"is-master-down-by-addr", 6, false, sentinelIsMasterDown},
		{"master", 3, local, sentinelMaster}, {"masters", 2, local, sentinelMasters}, {"monitor", 6, false, nil},
		{"myid", 2, local, sentinelMyID}, {"pending-scripts", 2, false, sentinelPendingScripts},
		{"remove", 3, false, nil}, {"replicas", 3, local, sentinelReplicas}, {"reset", 3, false, nil},
		{"sentinels", 3, local, sentinelSentinels}, {"set", -5, false, nil}, {"simulate-failure", -3, false, nil},
		{"slaves", 3, local, sentinelReplicas},
	}
	out := make([]*engine.Spec, 0, len(subs)+1)
	for _, s := range subs {
		fn := s.fn
		if fn == nil {
			fn = sentinelUnsupported
		}
		out = append(out, &engine.Spec{Name: s.name, Arity: s.arity, Flags: engine.Admin | engine.Sentinel, NodeLocal: s.local, Fn: fn})
	}
	out = append(out, &engine.Spec{Name: "help", Arity: 2, Flags: engine.Loading | engine.Stale | engine.Sentinel, Fn: sentinelHelp})
	return out
}

// sentinel helpers

// sentinelMasterView returns the cluster view and the master to report for
// name: the current leader, or the last one seen, marked down. ok is
// false when name is not the configured master name or no leader was
// ever seen.
func sentinelMasterView(c *engine.Ctx, name []byte) (v clusterView, master engine.Node, down, ok bool) {
	v = newClusterView(c.E, c.Now)
	if string(name) != c.E.Config.SentinelMasterName {
		return v, engine.Node{}, false, false
	}
	if v.hasLeader && v.leader.ClientAddr != "" {
		return v, v.leader, false, true
	}
	last := c.E.WithClientAddr(lastLeader(c.E))
	return v, last, true, last.ClientAddr != ""
}

func lagOf(n engine.Node) int64 {
	if n.Self || n.LagMs < 0 {
		return 0
	}
	return n.LagMs
}

// sentinelInstance writes one instance map (addReplySentinelRedisInstance).
// kind is "master", "slave" or "sentinel".
func sentinelInstance(c *engine.Ctx, v *clusterView, n engine.Node, kind string, master engine.Node, down bool) {
	w := c.W
	host, port := engine.SplitAddr(n.ClientAddr)
	lag := lagOf(n)
	if !down && kind != "master" {
		down = !v.linkUp(n)
	}
	fields := 11
	switch kind {
	case "master":
		fields += 9
	case "slave":
		fields += 10
	case "sentinel":
		fields += 3
	}
	if down {
		fields++
		if kind == "master" {
			fields++
		}
	}
	w.Map(fields)
	name := NodeID(n.ID)
	switch kind {
	case "master":
		name = c.E.Config.SentinelMasterName
	case "slave":
		name = n.ClientAddr
	}
	w.BulkString("name")
	w.BulkString(name)
	w.BulkString("ip")
	w.BulkString(host)
	w.BulkString("port")
	w.BulkInt(int64(port))
	w.BulkString("runid")
	w.BulkString(NodeID(n.ID))
	w.BulkString("flags")
	flags := kind
	if down {
		flags = "s_down," + kind
		if kind == "master" {
			flags = "s_down,o_down,master"
		}
	}
	w.BulkString(flags)
	w.BulkString("link-pending-commands")
	w.BulkInt(0)
	w.BulkString("link-refcount")
	w.BulkInt(1)
	w.BulkString("last-ping-sent")
	w.BulkInt(0)
	w.BulkString("last-ok-ping-reply")
	w.BulkInt(lag)
	w.BulkString("last-ping-reply")
	w.BulkInt(lag)
	if down {
		w.BulkString("s-down-time")
		w.BulkInt(lag)
		if kind == "master" {
			w.BulkString("o-down-time")
			w.BulkInt(lag)
		}
	}
	w.BulkString("down-after-milliseconds")
	w.BulkInt(linkDownMs)
	if kind == "sentinel" {
		w.BulkString("last-hello-message")
		w.BulkInt(lag)
		w.BulkString("voted-leader")
		w.BulkString("?")
		w.BulkString("voted-leader-epoch")
		w.BulkInt(0)
		return
	}
	w.BulkString("info-refresh")
	w.BulkInt(lag)
	w.BulkString("role-reported")
	w.BulkString(kind)
	w.BulkString("role-reported-time")
	w.BulkInt(c.Now - leaderSince(c.E))
	if kind == "master" {
		w.BulkString("config-epoch")
		w.BulkInt(int64(v.term))
		w.BulkString("num-slaves")
		w.BulkInt(int64(len(sentinelReplicaNodes(c, v, master))))
		w.BulkString("num-other-sentinels")
		w.BulkInt(int64(len(sentinelOthers(c, v))))
		w.BulkString("quorum")
		w.BulkInt(int64(v.quorum()))
		w.BulkString("failover-timeout")
		w.BulkInt(180000)
		w.BulkString("parallel-syncs")
		w.BulkInt(1)
		return
	}
	mh, mp := engine.SplitAddr(master.ClientAddr)
	w.BulkString("master-link-down-time")
	if down {
		w.BulkInt(lag)
	} else {
		w.BulkInt(0)
	}
	w.BulkString("master-link-status")
	if down || !v.hasLeader {
		w.BulkString("err")
	} else {
		w.BulkString("ok")
	}
	w.BulkString("master-host")
	w.BulkString(mh)
	w.BulkString("master-port")
	w.BulkInt(int64(mp))
	w.BulkString("slave-priority")
	w.BulkInt(100)
	w.BulkString("slave-repl-offset")
	w.BulkInt(int64(n.MatchIndex))
	w.BulkString("replica-announced")
	w.BulkInt(1)
}

// quorum is a majority of the voters.
func (v *clusterView) quorum() int {
	voters := 0
	for _, n := range v.nodes {
		if n.Voter {
			voters++
		}
	}
	return voters/2 + 1
}

// sentinelReplicaNodes are the members other than master that have a
// client address.
func sentinelReplicaNodes(c *engine.Ctx, v *clusterView, master engine.Node) []engine.Node {
	var out []engine.Node
	for _, n := range v.nodes {
		if n.ID != master.ID && n.ClientAddr != "" {
			out = append(out, n)
		}
	}
	return out
}

// sentinelOthers are the other members with a client address: every node
// answers as a Sentinel.
func sentinelOthers(c *engine.Ctx, v *clusterView) []engine.Node {
	var out []engine.Node
	for _, n := range v.nodes {
		if n.ID != v.self.ID && n.ClientAddr != "" {
			out = append(out, n)
		}
	}
	return out
}

// SENTINEL subcommands

func sentinelUnsupported(c *engine.Ctx, args [][]byte) {
	c.Error(engine.ErrSentinelUnsupported(c.Spec.Name))
}

func sentinelCkquorum(c *engine.Ctx, args [][]byte) {
	v, _, _, ok := sentinelMasterView(c, args[2])
	if !ok && string(args[2]) != c.E.Config.SentinelMasterName {
		c.Error(engine.ErrNoSuchMaster)
		return
	}
	usable := 0
	for _, n := range v.nodes {
		if n.Voter && v.linkUp(n) {
			usable++
		}
	}
	if usable >= v.quorum() {
		c.W.Status(fmt.Sprintf(engine.SentinelQuorumOK, usable))
		return
	}
	c.Error(engine.ErrSentinelNoQuorum(usable))
}

func sentinelGetMasterAddr(c *engine.Ctx, args [][]byte) {
	_, m, _, ok := sentinelMasterView(c, args[2])
	if !ok {
		// Sentinel answers null for a name it does not monitor; lockkv
		// also before it has seen any leader.
		c.W.NullArray()
		return
	}
	// During an election the last leader, as a Sentinel names the old
	// master until a failover completes (Redisson expects an address).
	host, port := engine.SplitAddr(m.ClientAddr)
	c.W.Array(2)
	c.W.BulkString(host)
	c.W.BulkInt(int64(port))
}

func sentinelHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "SENTINEL", sentinelHelpLines) }

// sentinelIsMasterDown is IS-MASTER-DOWN-BY-ADDR <ip> <port> <epoch>
// <runid>: lockkv's Sentinels never vote, and a leader Raft knows is up.
func sentinelIsMasterDown(c *engine.Ctx, args [][]byte) {
	if _, ok := redisnum.ParseInt(args[3]); !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if _, ok := redisnum.ParseInt(args[4]); !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	c.W.Array(3)
	c.W.Int(0)
	c.W.BulkString("*")
	c.W.Int(0)
}

func sentinelMaster(c *engine.Ctx, args [][]byte) {
	v, m, down, ok := sentinelMasterView(c, args[2])
	if !ok {
		c.Error(engine.ErrNoSuchMaster)
		return
	}
	sentinelInstance(c, &v, m, "master", m, down)
}

func sentinelMasters(c *engine.Ctx, args [][]byte) {
	v, m, down, ok := sentinelMasterView(c, []byte(c.E.Config.SentinelMasterName))
	if !ok {
		c.W.Array(0)
		return
	}
	c.W.Array(1)
	sentinelInstance(c, &v, m, "master", m, down)
}

func sentinelMyID(c *engine.Ctx, args [][]byte) { c.W.BulkString(NodeID(c.E.Cluster().Self().ID)) }

func sentinelPendingScripts(c *engine.Ctx, args [][]byte) { c.W.Array(0) }

func sentinelReplicas(c *engine.Ctx, args [][]byte) {
	v, m, _, ok := sentinelMasterView(c, args[2])
	if !ok {
		c.Error(engine.ErrNoSuchMaster)
		return
	}
	reps := sentinelReplicaNodes(c, &v, m)
	c.W.Array(len(reps))
	for _, n := range reps {
		sentinelInstance(c, &v, n, "slave", m, false)
	}
}

func sentinelSentinels(c *engine.Ctx, args [][]byte) {
	v, m, _, ok := sentinelMasterView(c, args[2])
	if !ok {
		c.Error(engine.ErrNoSuchMaster)
		return
	}
	others := sentinelOthers(c, &v)
	c.W.Array(len(others))
	for _, n := range others {
		sentinelInstance(c, &v, n, "sentinel", m, false)
	}
}

var sentinelHelpLines = []string{
	"CKQUORUM <master-name>",
	"    Check if the current Sentinel configuration is able to reach the quorum",
	"    needed to failover a master and the majority needed to authorize the",
	"    failover.",
	"CONFIG SET <param> <value>",
	"    Set a global Sentinel configuration parameter.",
	"CONFIG GET <param>",
	"    Get global Sentinel configuration parameter.",
	"DEBUG [<param> <value> ...]",
	"    Show a list of configurable time parameters and their values (milliseconds).",
	"    Or update current configurable parameters values (one or more).",
	"GET-MASTER-ADDR-BY-NAME <master-name>",
	"    Return the ip and port number of the master with that name.",
	"FAILOVER <master-name>",
	"    Manually failover a master node without asking for agreement from other",
	"    Sentinels",
	"FLUSHCONFIG",
	"    Force Sentinel to rewrite its configuration on disk, including the current",
	"    Sentinel state.",
	"INFO-CACHE <master-name>",
	"    Return last cached INFO output from masters and all its replicas.",
	"IS-MASTER-DOWN-BY-ADDR <ip> <port> <current-epoch> <runid>",
	"    Check if the master specified by ip:port is down from current Sentinel's",
	"    point of view.",
	"MASTER <master-name>",
	"    Show the state and info of the specified master.",
	"MASTERS",
	"    Show a list of monitored masters and their state.",
	"MONITOR <name> <ip> <port> <quorum>",
	"    Start monitoring a new master with the specified name, ip, port and quorum.",
	"MYID",
	"    Return the ID of the Sentinel instance.",
	"PENDING-SCRIPTS",
	"    Get pending scripts information.",
	"REMOVE <master-name>",
	"    Remove master from Sentinel's monitor list.",
	"REPLICAS <master-name>",
	"    Show a list of replicas for this master and their state.",
	"RESET <pattern>",
	"    Reset masters for specific master name matching this pattern.",
	"SENTINELS <master-name>",
	"    Show a list of Sentinel instances for this master and their state.",
	"SET <master-name> <option> <value> [<option> <value> ...]",
	"    Set configuration parameters for certain masters.",
	"SIMULATE-FAILURE [CRASH-AFTER-ELECTION] [CRASH-AFTER-PROMOTION] [HELP]",
	"    Simulate a Sentinel crash.",
}
