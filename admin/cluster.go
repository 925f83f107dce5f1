package admin

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// CLUSTER, READONLY, READWRITE, ASKING.
//
// A standalone server (Engine.Cluster nil) answers them as a Redis 7.0
// without cluster support: "ERR This instance has cluster support
// disabled", after the table's arity check, exactly where Redis answers.
//
// In cluster mode lockkv presents the Raft cluster as one Redis Cluster
// shard: the leader is the master of all 16384 slots and every other
// member a replica of it, so cluster clients (go-redis ClusterClient,
// Redisson's cluster mode) find the leader from CLUSTER SLOTS, SHARDS or
// NODES and follow -MOVED (Ctx.redirect) when it changes. Replies are
// formatted as Redis 7.0's cluster.c formats them (clusterGenNodeDescription,
// clusterReplyMultiBulkSlots, clusterReplyShards), checked against a
// cluster-enabled redis-server 7.0.15:
//
//   - node IDs are 40 hex characters, as in Redis: the hex SHA-1 of the
//     Raft server ID (NodeID), stable across restarts and equal on every
//     node;
//   - a node's address is its client address (Node.ClientAddr); the
//     cluster bus port of CLUSTER NODES ("ip:port@cport") is the port of
//     its Raft address; a node that has not announced a client address is
//     shown as Redis shows one without an address (":0@cport", noaddr);
//   - the config epoch of every node, current_epoch and my_epoch are the
//     Raft term; replication offsets are Raft log indexes (MatchIndex);
//   - while no leader is known every node is shown as a master without
//     slots and CLUSTER INFO says cluster_state:fail.
//
// COUNTKEYSINSLOT and GETKEYSINSLOT walk the selected database (lockkv
// keeps no per-slot index; they are admin commands) and see live keys
// only; GETKEYSINSLOT's order is the keyspace's, not Redis's.

var clusterCommands = []*engine.Spec{
	{Name: "readonly", Arity: 1, Flags: engine.Loading | engine.Stale | engine.Fast, ACL: []string{"connection"}, Fn: readonlyCmd},
	{Name: "readwrite", Arity: 1, Flags: engine.Loading | engine.Stale | engine.Fast, ACL: []string{"connection"}, Fn: readwriteCmd},
	{Name: "asking", Arity: 1, Flags: engine.Fast, ACL: []string{"connection"}, Fn: askingCmd},
	{Name: "cluster", Arity: -2, Sub: clusterSubs()},
}

func init() { engine.Register(clusterCommands) }

// NodeID is the 40-hex-character Redis Cluster node ID lockkv shows for
// the Raft server ID id (CLUSTER NODES, SLOTS, SHARDS, MYID; SENTINEL
// runid): the hex SHA-1 of id.
func NodeID(id string) string {
	sum := sha1.Sum([]byte(id))
	return hex.EncodeToString(sum[:])
}

// clusterSubs declares CLUSTER's subcommands with Redis 7.0's arity and
// flags. The ones that change a Redis Cluster's configuration (slots,
// MEET, FAILOVER, ...) have no meaning for a Raft cluster, whose
// membership changes through RAFT.NODE: they answer as a standalone
// server does.
func clusterSubs() []*engine.Spec {
	admin := engine.Admin | engine.Stale | engine.NoAsyncLoading
	nd := []string{"nondeterministic_output"}
	// local is NodeLocal: the answer is this node's view of the cluster
	// (myself, its epochs and offsets as this node last saw them), or
	// GETKEYSINSLOT's, whose keys come in this node's table order.
	const local = true
	subs := []struct {
		name  string
		arity int
		flags engine.Flag
		tips  []string
		local bool
		fn    engine.Handler
	}{
		{"addslots", -3, admin, nil, false, nil}, {"addslotsrange", -4, admin, nil, false, nil},
		{"bumpepoch", 2, admin, nd, false, nil}, {"count-failure-reports", 3, engine.Admin | engine.Stale, nd, false, nil},
		{"countkeysinslot", 3, engine.Stale, nil, false, clusterCountKeysInSlot}, {"delslots", -3, admin, nil, false, nil},
		{"delslotsrange", -4, admin, nil, false, nil}, {"failover", -2, admin, nil, false, clusterFailover},
		{"flushslots", 2, admin, nil, false, nil}, {"forget", 3, admin, nil, false, nil},
		{"getkeysinslot", 4, engine.Stale, nd, local, clusterGetKeysInSlot}, {"help", 2, engine.Loading | engine.Stale, nil, false, clusterHelp},
		{"info", 2, engine.Stale, nd, local, clusterInfo}, {"keyslot", 3, engine.Stale, nil, false, clusterKeySlot}, {"links", 2, engine.Stale, nd, false, nil},
		{"meet", -4, admin, nil, false, nil}, {"myid", 2, engine.Stale, nil, local, clusterMyID}, {"nodes", 2, engine.Stale, nd, local, clusterNodes},
		{"replicas", 3, engine.Admin | engine.Stale, nd, local, clusterReplicas}, {"replicate", 3, admin, nil, false, nil},
		{"reset", -2, engine.Admin | engine.NoScript | engine.Stale, nil, false, nil}, {"saveconfig", 2, admin, nil, false, nil},
		{"set-config-epoch", 3, admin, nil, false, nil}, {"setslot", -4, admin, nil, false, nil},
		{"shards", 2, engine.Stale, nd, local, clusterShards}, {"slaves", 3, engine.Admin | engine.Stale, nd, local, clusterReplicas},
		{"slots", 2, engine.Stale, nd, local, clusterSlots},
	}
	out := make([]*engine.Spec, len(subs))
	for i, s := range subs {
		fn := s.fn
		if fn == nil {
			fn = clusterDisabled
		} else {
			fn = clusterOnly(fn)
		}
		out[i] = &engine.Spec{Name: s.name, Arity: s.arity, Flags: s.flags, Tips: s.tips, NodeLocal: s.local, Fn: fn}
	}
	return out
}

// cluster helpers

func clusterDisabled(c *engine.Ctx, args [][]byte) { c.Error(engine.ErrClusterDisabled) }

// clusterOnly runs fn in cluster mode and answers as a standalone Redis
// otherwise.
func clusterOnly(fn engine.Handler) engine.Handler {
	return func(c *engine.Ctx, args [][]byte) {
		if c.E.Cluster() == nil {
			c.Error(engine.ErrClusterDisabled)
			return
		}
		fn(c, args)
	}
}

// clusterView is one consistent reading of the cluster for one reply.
type clusterView struct {
	nodes     []engine.Node
	self      engine.Node
	leader    engine.Node
	hasLeader bool
	term      uint64
	now       int64
}

func newClusterView(e *engine.Engine, now int64) clusterView {
	cl := e.Cluster()
	v := clusterView{nodes: cl.Nodes(), self: cl.Self(), term: cl.Status().Term, now: now}
	v.leader, v.hasLeader = cl.Leader()
	if v.hasLeader {
		e.NoteLeader(v.leader, now)
	}
	return v
}

// isLeader reports whether n is the leader this view knows.
func (v *clusterView) isLeader(n engine.Node) bool { return v.hasLeader && n.ID == v.leader.ID }

// replicas returns the members other than the leader, in ID order.
func (v *clusterView) replicas() []engine.Node {
	out := make([]engine.Node, 0, len(v.nodes))
	for _, n := range v.nodes {
		if !v.isLeader(n) {
			out = append(out, n)
		}
	}
	return out
}

// linkDownMs is how long a member may go unheard before this node calls
// its link down (CLUSTER NODES "disconnected", SENTINEL "s_down", INFO
// master_link_status:down). The same as Redis Sentinel's default
// down-after-milliseconds would be too long for a Raft cluster, whose
// election timeout is about a second.
const linkDownMs = 5000

// linkUp reports whether this node hears from n. A node that knows
// nothing about n (a follower asked about another follower: LagMs -1)
// says up unless it is the leader, which hears from every member.
func (v *clusterView) linkUp(n engine.Node) bool {
	if n.Self || n.ID == v.self.ID {
		return true
	}
	if n.LagMs < 0 {
		return !v.self.Leader
	}
	return n.LagMs < linkDownMs
}

// busPort is the port CLUSTER NODES shows after '@': the Raft port.
func busPort(n engine.Node) int {
	_, p := engine.SplitAddr(n.RaftAddr)
	return p
}

// readonlyCmd is READONLY: in cluster mode the client may read from a
// follower (Ctx.redirect).
func readonlyCmd(c *engine.Ctx, args [][]byte) {
	if c.E.Cluster() == nil {
		c.Error(engine.ErrClusterDisabled)
		return
	}
	c.C.Readonly = true
	c.W.OK()
}

func readwriteCmd(c *engine.Ctx, args [][]byte) {
	if c.E.Cluster() == nil {
		c.Error(engine.ErrClusterDisabled)
		return
	}
	c.C.Readonly = false
	c.W.OK()
}

// askingCmd is ASKING. A Raft cluster never migrates slots, so it only
// answers OK in cluster mode.
func askingCmd(c *engine.Ctx, args [][]byte) {
	if c.E.Cluster() == nil {
		c.Error(engine.ErrClusterDisabled)
		return
	}
	c.W.OK()
}

// CLUSTER subcommands, in Redis's help order

func clusterCountKeysInSlot(c *engine.Ctx, args [][]byte) {
	slot, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if slot < 0 || slot >= 16384 {
		c.Error(engine.ErrInvalidSlot)
		return
	}
	n := 0
	c.DB.Range(func(key string, e *store.Entry) bool {
		if !e.Expired(c.Now) && engine.KeySlot([]byte(key)) == int(slot) {
			n++
		}
		return true
	})
	c.W.Int(int64(n))
}

func clusterGetKeysInSlot(c *engine.Ctx, args [][]byte) {
	slot, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	max, ok := redisnum.ParseInt(args[3])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if slot < 0 || slot >= 16384 || max < 0 {
		c.Error(engine.ErrInvalidSlotOrKeys)
		return
	}
	var keys []string
	if max > 0 {
		c.DB.Range(func(key string, e *store.Entry) bool {
			if !e.Expired(c.Now) && engine.KeySlot([]byte(key)) == int(slot) {
				keys = append(keys, key)
			}
			return int64(len(keys)) < max
		})
	}
	c.W.StringArray(keys)
}

var clusterHelpLines = []string{
	"ADDSLOTS <slot> [<slot> ...]",
	"    Assign slots to current node.",
	"ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
	"    Assign slots which are between <start-slot> and <end-slot> to current node.",
	"BUMPEPOCH",
	"    Advance the cluster config epoch.",
	"COUNT-FAILURE-REPORTS <node-id>",
	"    Return number of failure reports for <node-id>.",
	"COUNTKEYSINSLOT <slot>",
	"    Return the number of keys in <slot>.",
	"DELSLOTS <slot> [<slot> ...]",
	"    Delete slots information from current node.",
	"DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
	"    Delete slots information which are between <start-slot> and <end-slot> from current node.",
	"FAILOVER [FORCE|TAKEOVER]",
	"    Promote current replica node to being a master.",
	"FORGET <node-id>",
	"    Remove a node from the cluster.",
	"GETKEYSINSLOT <slot> <count>",
	"    Return key names stored by current node in a slot.",
	"FLUSHSLOTS",
	"    Delete current node own slots information.",
	"INFO",
	"    Return information about the cluster.",
	"KEYSLOT <key>",
	"    Return the hash slot for <key>.",
	"MEET <ip> <port> [<bus-port>]",
	"    Connect nodes into a working cluster.",
	"MYID",
	"    Return the node id.",
	"NODES",
	"    Return cluster configuration seen by node. Output format:",
	"    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
	"REPLICATE <node-id>",
	"    Configure current node as replica to <node-id>.",
	"RESET [HARD|SOFT]",
	"    Reset current node (default: soft).",
	"SET-CONFIG-EPOCH <epoch>",
	"    Set config epoch of current node.",
	"SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
	"    Set slot state.",
	"REPLICAS <node-id>",
	"    Return <node-id> replicas.",
	"SAVECONFIG",
	"    Force saving cluster configuration on disk.",
	"SLOTS",
	"    Return information about slots range mappings. Each range is made of:",
	"    start, end, master and replicas IP addresses, ports and ids",
	"SHARDS",
	"    Return information about slot range mappings and the nodes associated with them.",
	"LINKS",
	"    Return information about all network links between this node and its peers.",
	"    Output format is an array where each array element is a map containing attributes of a link",
}

func clusterHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "CLUSTER", clusterHelpLines) }

func clusterInfo(c *engine.Ctx, args [][]byte) {
	v := newClusterView(c.E, c.Now)
	state, slots, size := "fail", 0, 0
	if v.hasLeader {
		state, slots, size = "ok", 16384, 1
	}
	var b []byte
	b = kv(b, "cluster_state", state)
	b = kvi(b, "cluster_slots_assigned", int64(slots))
	b = kvi(b, "cluster_slots_ok", int64(slots))
	b = kvi(b, "cluster_slots_pfail", 0)
	b = kvi(b, "cluster_slots_fail", 0)
	b = kvi(b, "cluster_known_nodes", int64(len(v.nodes)))
	b = kvi(b, "cluster_size", int64(size))
	b = kvi(b, "cluster_current_epoch", int64(v.term))
	b = kvi(b, "cluster_my_epoch", int64(v.term))
	b = kvi(b, "cluster_stats_messages_sent", 0)
	b = kvi(b, "cluster_stats_messages_received", 0)
	b = kvi(b, "total_cluster_links_buffer_limit_exceeded", 0)
	c.W.Verbatim(string(b), "txt")
}

func clusterKeySlot(c *engine.Ctx, args [][]byte) { c.W.Int(int64(engine.KeySlot(args[2]))) }

func clusterMyID(c *engine.Ctx, args [][]byte) { c.W.BulkString(NodeID(c.E.Cluster().Self().ID)) }

// nodeLine is one line of CLUSTER NODES, without the newline
// (clusterGenNodeDescription).
func (v *clusterView) nodeLine(b []byte, n engine.Node) []byte {
	b = append(b, NodeID(n.ID)...)
	b = append(b, ' ')
	host, port := engine.SplitAddr(n.ClientAddr)
	b = append(b, host...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(port), 10)
	b = append(b, '@')
	b = strconv.AppendInt(b, int64(busPort(n)), 10)
	b = append(b, ' ')
	var flags []string
	self := n.ID == v.self.ID
	if self {
		flags = append(flags, "myself")
	}
	master := !v.hasLeader || v.isLeader(n)
	if master {
		flags = append(flags, "master")
	} else {
		flags = append(flags, "slave")
	}
	up := v.linkUp(n)
	if !up {
		flags = append(flags, "fail?")
	}
	if n.ClientAddr == "" {
		flags = append(flags, "noaddr")
	}
	b = append(b, strings.Join(flags, ",")...)
	b = append(b, ' ')
	if master {
		b = append(b, '-')
	} else {
		b = append(b, NodeID(v.leader.ID)...)
	}
	// ping_sent, pong_received (ms timestamps; 0 for myself), epoch, link.
	b = append(b, " 0 "...)
	if self || n.LagMs < 0 {
		b = append(b, '0')
	} else {
		b = strconv.AppendInt(b, v.now-n.LagMs, 10)
	}
	b = append(b, ' ')
	b = strconv.AppendUint(b, v.term, 10)
	if up {
		b = append(b, " connected"...)
	} else {
		b = append(b, " disconnected"...)
	}
	if v.isLeader(n) {
		b = append(b, " 0-16383"...)
	}
	return b
}

func clusterNodes(c *engine.Ctx, args [][]byte) {
	v := newClusterView(c.E, c.Now)
	var b []byte
	for _, n := range v.nodes {
		b = v.nodeLine(b, n)
		b = append(b, '\n')
	}
	c.W.Verbatim(string(b), "txt")
}

// clusterReplicas is CLUSTER REPLICAS and CLUSTER SLAVES: the lines of
// CLUSTER NODES of the node's replicas.
func clusterReplicas(c *engine.Ctx, args [][]byte) {
	v := newClusterView(c.E, c.Now)
	id := string(args[2])
	var node *engine.Node
	for i := range v.nodes {
		if NodeID(v.nodes[i].ID) == id {
			node = &v.nodes[i]
			break
		}
	}
	if node == nil {
		c.Error(engine.ErrUnknownNode(id))
		return
	}
	if !v.isLeader(*node) {
		if v.hasLeader {
			c.Error(engine.ErrNotMasterNode)
			return
		}
		c.W.Array(0) // a master without replicas while no leader is known
		return
	}
	reps := v.replicas()
	c.W.Array(len(reps))
	for _, n := range reps {
		c.W.BulkString(string(v.nodeLine(nil, n)))
	}
}

// shardNode writes one node of CLUSTER SHARDS (addNodeDetailsToShardReply).
func (v *clusterView) shardNode(c *engine.Ctx, n engine.Node) {
	host, port := engine.SplitAddr(n.ClientAddr)
	c.W.Map(7)
	c.W.BulkString("id")
	c.W.BulkString(NodeID(n.ID))
	c.W.BulkString("port")
	c.W.Int(int64(port))
	c.W.BulkString("ip")
	c.W.BulkString(host)
	c.W.BulkString("endpoint")
	c.W.BulkString(host)
	c.W.BulkString("role")
	if !v.hasLeader || v.isLeader(n) {
		c.W.BulkString("master")
	} else {
		c.W.BulkString("replica")
	}
	c.W.BulkString("replication-offset")
	c.W.Int(int64(n.MatchIndex))
	c.W.BulkString("health")
	if v.linkUp(n) {
		c.W.BulkString("online")
	} else {
		c.W.BulkString("failed")
	}
}

func clusterShards(c *engine.Ctx, args [][]byte) {
	v := newClusterView(c.E, c.Now)
	if !v.hasLeader {
		// Every node a master of its own shard, without slots.
		c.W.Array(len(v.nodes))
		for _, n := range v.nodes {
			c.W.Map(2)
			c.W.BulkString("slots")
			c.W.Array(0)
			c.W.BulkString("nodes")
			c.W.Array(1)
			v.shardNode(c, n)
		}
		return
	}
	c.W.Array(1)
	c.W.Map(2)
	c.W.BulkString("slots")
	c.W.Array(2)
	c.W.Int(0)
	c.W.Int(16383)
	c.W.BulkString("nodes")
	reps := v.replicas()
	c.W.Array(1 + len(reps))
	v.shardNode(c, v.leader)
	for _, n := range reps {
		v.shardNode(c, n)
	}
}

// slotNode writes one node of CLUSTER SLOTS: ip, port, id and the
// (empty) map of further endpoints.
func slotNode(c *engine.Ctx, n engine.Node) {
	host, port := engine.SplitAddr(n.ClientAddr)
	c.W.Array(4)
	c.W.BulkString(host)
	c.W.Int(int64(port))
	c.W.BulkString(NodeID(n.ID))
	c.W.Map(0)
}

// clusterSlots lists the leader and the replicas that have a client
// address and are reachable, as Redis leaves out failed replicas.
func clusterSlots(c *engine.Ctx, args [][]byte) {
	v := newClusterView(c.E, c.Now)
	if !v.hasLeader || v.leader.ClientAddr == "" {
		c.W.Array(0)
		return
	}
	var reps []engine.Node
	for _, n := range v.replicas() {
		if n.ClientAddr != "" && v.linkUp(n) {
			reps = append(reps, n)
		}
	}
	c.W.Array(1)
	c.W.Array(2 + 1 + len(reps))
	c.W.Int(0)
	c.W.Int(16383)
	slotNode(c, v.leader)
	for _, n := range reps {
		slotNode(c, n)
	}
}
