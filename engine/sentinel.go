package engine

import (
	"strconv"

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

var sentinelCommands = []*Spec{
	{Name: "sentinel", Arity: -2, Flags: Admin | Sentinel, ClusterOnly: true, Sub: sentinelSubs()},
}

func init() { Register(sentinelCommands) }

func sentinelSubs() []*Spec {
	subs := []struct {
		name  string
		arity int
		fn    Handler
	}{
		{"ckquorum", 3, sentinelCkquorum}, {"config", -3, nil}, {"debug", -2, nil},
		{"failover", 3, nil}, {"flushconfig", 2, nil},
		{"get-master-addr-by-name", 3, sentinelGetMasterAddr},
		{"info-cache", -3, nil}, {"is-master-down-by-addr", 6, sentinelIsMasterDown},
		{"master", 3, sentinelMaster}, {"masters", 2, sentinelMasters}, {"monitor", 6, nil},
		{"myid", 2, sentinelMyID}, {"pending-scripts", 2, sentinelPendingScripts},
		{"remove", 3, nil}, {"replicas", 3, sentinelReplicas}, {"reset", 3, nil},
		{"sentinels", 3, sentinelSentinels}, {"set", -5, nil}, {"simulate-failure", -3, nil},
		{"slaves", 3, sentinelReplicas},
	}
	out := make([]*Spec, 0, len(subs)+1)
	for _, s := range subs {
		fn := s.fn
		if fn == nil {
			fn = sentinelUnsupported
		}
		out = append(out, &Spec{Name: s.name, Arity: s.arity, Flags: Admin | Sentinel, Fn: fn})
	}
	out = append(out, &Spec{Name: "help", Arity: 2, Flags: Loading | Stale | Sentinel, Fn: sentinelHelp})
	return out
}

// sentinel helpers

// sentinelState is what the engine remembers about leadership for
// Sentinel's replies.
type sentinelState struct {
	// last is the newest leader seen, kept while none is known, so
	// SENTINEL MASTERS still shows the master (down) during an election.
	last Node
	// since is when last became leader as far as this node saw (ms).
	since int64
	// announced is the leader the last +switch-master named (or the first
	// leader LeaderChanged reported): the old address of the next one.
	announced Node
}

// noteLeader records that n leads at now.
func (e *Engine) noteLeader(n Node, now int64) {
	if n.ID != e.sentinel.last.ID || e.sentinel.since == 0 {
		e.sentinel.since = now
	}
	e.sentinel.last = n
}

// LeaderChanged is called by the replication layer, on the command
// goroutine, when the leader this node knows changes (new.ID is empty
// while none is known). When a leader follows another, local subscribers
// of "+switch-master" get Sentinel's message "<master-name> <old-ip>
// <old-port> <new-ip> <new-port>". The old leader is old or, while old is
// unknown (an election ran in between), the leader LeaderChanged last
// reported; addresses not known yet are looked up in the membership.
// Output is delivered by the loop's next FlushOutputs.
func (e *Engine) LeaderChanged(old, new Node) {
	if old.ID == "" {
		old = e.sentinel.announced
	}
	if new.ID == "" {
		return
	}
	old, new = e.withClientAddr(old), e.withClientAddr(new)
	e.noteLeader(new, e.NowMs())
	e.sentinel.announced = new
	if old.ID == new.ID || old.ClientAddr == "" || new.ClientAddr == "" {
		return
	}
	oh, op := splitAddr(old.ClientAddr)
	nh, np := splitAddr(new.ClientAddr)
	msg := e.Config.SentinelMasterName + " " + oh + " " + strconv.Itoa(op) + " " + nh + " " + strconv.Itoa(np)
	publishMessage(e, "+switch-master", msg, false)
}

// withClientAddr fills in n's client address from the membership when n
// does not carry it (a member whose address was not known yet).
func (e *Engine) withClientAddr(n Node) Node {
	if n.ID == "" || n.ClientAddr != "" || e.Cluster == nil {
		return n
	}
	for _, m := range e.Cluster.Nodes() {
		if m.ID == n.ID {
			n.ClientAddr = m.ClientAddr
			break
		}
	}
	return n
}

// sentinelMasterView returns the cluster view and the master to report for
// name: the current leader, or the last one seen, marked down. ok is
// false when name is not the configured master name or no leader was
// ever seen.
func (c *Ctx) sentinelMasterView(name []byte) (v clusterView, master Node, down, ok bool) {
	v = c.E.clusterView(c.Now)
	if string(name) != c.E.Config.SentinelMasterName {
		return v, Node{}, false, false
	}
	if v.hasLeader && v.leader.ClientAddr != "" {
		return v, v.leader, false, true
	}
	last := c.E.withClientAddr(c.E.sentinel.last)
	return v, last, true, last.ClientAddr != ""
}

func lagOf(n Node) int64 {
	if n.Self || n.LagMs < 0 {
		return 0
	}
	return n.LagMs
}

// sentinelInstance writes one instance map (addReplySentinelRedisInstance).
// kind is "master", "slave" or "sentinel".
func (c *Ctx) sentinelInstance(v *clusterView, n Node, kind string, master Node, down bool) {
	w := c.W
	host, port := splitAddr(n.ClientAddr)
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
	w.BulkInt(c.Now - c.E.sentinel.since)
	if kind == "master" {
		w.BulkString("config-epoch")
		w.BulkInt(int64(v.term))
		w.BulkString("num-slaves")
		w.BulkInt(int64(len(c.sentinelReplicaNodes(v, master))))
		w.BulkString("num-other-sentinels")
		w.BulkInt(int64(len(c.sentinelOthers(v))))
		w.BulkString("quorum")
		w.BulkInt(int64(v.quorum()))
		w.BulkString("failover-timeout")
		w.BulkInt(180000)
		w.BulkString("parallel-syncs")
		w.BulkInt(1)
		return
	}
	mh, mp := splitAddr(master.ClientAddr)
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
func (c *Ctx) sentinelReplicaNodes(v *clusterView, master Node) []Node {
	var out []Node
	for _, n := range v.nodes {
		if n.ID != master.ID && n.ClientAddr != "" {
			out = append(out, n)
		}
	}
	return out
}

// sentinelOthers are the other members with a client address: every node
// answers as a Sentinel.
func (c *Ctx) sentinelOthers(v *clusterView) []Node {
	var out []Node
	for _, n := range v.nodes {
		if n.ID != v.self.ID && n.ClientAddr != "" {
			out = append(out, n)
		}
	}
	return out
}

// SENTINEL subcommands

func sentinelUnsupported(c *Ctx, args [][]byte) {
	c.Error(ErrSentinelUnsupported(c.Spec.Name))
}

func sentinelCkquorum(c *Ctx, args [][]byte) {
	v, _, _, ok := c.sentinelMasterView(args[2])
	if !ok && string(args[2]) != c.E.Config.SentinelMasterName {
		c.Error(ErrNoSuchMaster)
		return
	}
	usable := 0
	for _, n := range v.nodes {
		if n.Voter && v.linkUp(n) {
			usable++
		}
	}
	if usable >= v.quorum() {
		c.W.Status(sprintf(SentinelQuorumOK, usable))
		return
	}
	c.Error(ErrSentinelNoQuorum(usable))
}

func sentinelGetMasterAddr(c *Ctx, args [][]byte) {
	_, m, _, ok := c.sentinelMasterView(args[2])
	if !ok {
		// Sentinel answers null for a name it does not monitor; lockkv
		// also before it has seen any leader.
		c.W.NullArray()
		return
	}
	// During an election the last leader, as a Sentinel names the old
	// master until a failover completes (Redisson expects an address).
	host, port := splitAddr(m.ClientAddr)
	c.W.Array(2)
	c.W.BulkString(host)
	c.W.BulkInt(int64(port))
}

func sentinelHelp(c *Ctx, args [][]byte) { writeHelpReply(c.W, "SENTINEL", sentinelHelpLines) }

// sentinelIsMasterDown is IS-MASTER-DOWN-BY-ADDR <ip> <port> <epoch>
// <runid>: lockkv's Sentinels never vote, and a leader Raft knows is up.
func sentinelIsMasterDown(c *Ctx, args [][]byte) {
	if _, ok := redisnum.ParseInt(args[3]); !ok {
		c.Error(ErrNotInt)
		return
	}
	if _, ok := redisnum.ParseInt(args[4]); !ok {
		c.Error(ErrNotInt)
		return
	}
	c.W.Array(3)
	c.W.Int(0)
	c.W.BulkString("*")
	c.W.Int(0)
}

func sentinelMaster(c *Ctx, args [][]byte) {
	v, m, down, ok := c.sentinelMasterView(args[2])
	if !ok {
		c.Error(ErrNoSuchMaster)
		return
	}
	c.sentinelInstance(&v, m, "master", m, down)
}

func sentinelMasters(c *Ctx, args [][]byte) {
	v, m, down, ok := c.sentinelMasterView([]byte(c.E.Config.SentinelMasterName))
	if !ok {
		c.W.Array(0)
		return
	}
	c.W.Array(1)
	c.sentinelInstance(&v, m, "master", m, down)
}

func sentinelMyID(c *Ctx, args [][]byte) { c.W.BulkString(NodeID(c.E.Cluster.Self().ID)) }

func sentinelPendingScripts(c *Ctx, args [][]byte) { c.W.Array(0) }

func sentinelReplicas(c *Ctx, args [][]byte) {
	v, m, _, ok := c.sentinelMasterView(args[2])
	if !ok {
		c.Error(ErrNoSuchMaster)
		return
	}
	reps := c.sentinelReplicaNodes(&v, m)
	c.W.Array(len(reps))
	for _, n := range reps {
		c.sentinelInstance(&v, n, "slave", m, false)
	}
}

func sentinelSentinels(c *Ctx, args [][]byte) {
	v, m, _, ok := c.sentinelMasterView(args[2])
	if !ok {
		c.Error(ErrNoSuchMaster)
		return
	}
	others := c.sentinelOthers(&v)
	c.W.Array(len(others))
	for _, n := range others {
		c.sentinelInstance(&v, n, "sentinel", m, false)
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
