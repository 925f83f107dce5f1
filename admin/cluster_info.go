package admin

import (
	"strconv"

	"github.com/lockkv/lockkv/engine"
)

// INFO replication, ROLE and the server mode in cluster mode. The leader
// reports itself as a Redis master and its followers as replicas; a
// follower reports itself as a replica of the leader; replication offsets
// are Raft log indexes. lockkv's own raft_* fields follow Redis's.

// selfLeads reports whether the node answering is the leader.
func (v *clusterView) selfLeads() bool { return v.hasLeader && v.leader.ID == v.self.ID }

// master is the leader a follower reports, or the last one seen while none
// is known.
func masterFor(e *engine.Engine, v *clusterView) (engine.Node, bool) {
	if v.hasLeader {
		return v.leader, true
	}
	return lastLeader(e), false
}

// connectedReplicas are the followers the leader hears from.
func (v *clusterView) connectedReplicas() []engine.Node {
	var out []engine.Node
	for _, n := range v.replicas() {
		if n.ID != v.self.ID && n.LagMs >= 0 && v.linkUp(n) {
			out = append(out, n)
		}
	}
	return out
}

func appendKV(b []byte, k string, v any) []byte {
	b = append(b, k...)
	b = append(b, '=')
	switch x := v.(type) {
	case string:
		b = append(b, x...)
	case int64:
		b = strconv.AppendInt(b, x, 10)
	case uint64:
		b = strconv.AppendUint(b, x, 10)
	case bool:
		if x {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
	}
	return b
}

// infoReplicationCluster is INFO replication in cluster mode, with Redis
// 7.0's fields in genRedisInfoString's order, then lockkv's raft_* fields.
func infoReplicationCluster(e *engine.Engine, b []byte, now int64) []byte {
	v := newClusterView(e, now)
	st := e.Cluster().Status()
	var offset uint64
	if v.selfLeads() {
		offset = st.LastLogIndex
		b = kv(b, "role", "master")
		reps := v.connectedReplicas()
		b = kvi(b, "connected_slaves", int64(len(reps)))
		for i, n := range reps {
			host, port := engine.SplitAddr(n.ClientAddr)
			b = append(b, "slave"...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, ':')
			b = appendKV(b, "ip", host)
			b = appendKV(append(b, ','), "port", int64(port))
			b = append(b, ",state=online"...)
			b = appendKV(append(b, ','), "offset", n.MatchIndex)
			b = appendKV(append(b, ','), "lag", n.LagMs/1000)
			b = append(b, '\r', '\n')
		}
	} else {
		offset = st.AppliedIndex
		m, _ := masterFor(e, &v)
		host, port := engine.SplitAddr(m.ClientAddr)
		up := v.hasLeader && m.ClientAddr != "" && v.linkUp(m)
		b = kv(b, "role", "slave")
		b = kv(b, "master_host", host)
		b = kvi(b, "master_port", int64(port))
		if up {
			b = kv(b, "master_link_status", "up")
		} else {
			b = kv(b, "master_link_status", "down")
		}
		lastIO := int64(-1)
		if v.hasLeader && m.LagMs >= 0 {
			lastIO = m.LagMs / 1000
		}
		b = kvi(b, "master_last_io_seconds_ago", lastIO)
		b = kvi(b, "master_sync_in_progress", 0)
		b = kvi(b, "slave_read_repl_offset", int64(st.AppliedIndex))
		b = kvi(b, "slave_repl_offset", int64(st.AppliedIndex))
		if !up {
			b = kvi(b, "master_link_down_since_seconds", lastIO)
		}
		b = kvi(b, "slave_priority", 100)
		b = kvi(b, "slave_read_only", 1)
		b = kvi(b, "replica_announced", 1)
		b = kvi(b, "connected_slaves", 0)
	}
	b = kv(b, "master_failover_state", "no-failover")
	b = kv(b, "master_replid", e.RunID)
	b = kv(b, "master_replid2", "0000000000000000000000000000000000000000")
	b = kvi(b, "master_repl_offset", int64(offset))
	b = kvi(b, "second_repl_offset", -1)
	b = kvi(b, "repl_backlog_active", 1)
	b = kvi(b, "repl_backlog_size", 1048576)
	b = kvi(b, "repl_backlog_first_byte_offset", int64(st.FirstIndex))
	hist := int64(0)
	if st.LastLogIndex >= st.FirstIndex && st.FirstIndex > 0 {
		hist = int64(st.LastLogIndex - st.FirstIndex + 1)
	}
	b = kvi(b, "repl_backlog_histlen", hist)

	b = kv(b, "raft_node_id", v.self.ID)
	b = kv(b, "raft_cluster_id", st.ClusterID)
	b = kv(b, "raft_state", st.State)
	b = kvi(b, "raft_term", int64(st.Term))
	if v.hasLeader {
		b = kv(b, "raft_leader_id", v.leader.ID)
		b = kv(b, "raft_leader_addr", v.leader.RaftAddr)
	} else {
		b = kv(b, "raft_leader_id", "")
		b = kv(b, "raft_leader_addr", "")
	}
	b = kvi(b, "raft_last_log_index", int64(st.LastLogIndex))
	b = kvi(b, "raft_commit_index", int64(st.CommitIndex))
	b = kvi(b, "raft_applied_index", int64(st.AppliedIndex))
	b = kvi(b, "raft_first_index", int64(st.FirstIndex))
	b = kvi(b, "raft_last_snapshot_index", int64(st.LastSnapshotIndex))
	peers := e.NodesWithLag()
	for i, n := range peers {
		b = append(b, "raft_peer"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ':')
		b = appendKV(b, "id", n.ID)
		b = appendKV(append(b, ','), "raft_addr", n.RaftAddr)
		b = appendKV(append(b, ','), "client_addr", n.ClientAddr)
		b = appendKV(append(b, ','), "voter", n.Voter)
		b = appendKV(append(b, ','), "leader", v.isLeader(n))
		switch {
		case n.Progress:
			b = appendKV(append(b, ','), "match_index", n.MatchIndex)
			b = appendKV(append(b, ','), "applied_index", n.AppliedIndex)
			b = appendKV(append(b, ','), "lag_ms", n.ReplLagMs)
		case v.selfLeads():
			b = append(b, ",progress=unreported"...) // no report from it yet
		default:
			b = append(b, ",progress=leader_only"...) // ask the leader
		}
		b = appendKV(append(b, ','), "last_contact_ms", n.LagMs)
		b = append(b, '\r', '\n')
	}
	return b
}

// roleCluster is ROLE in cluster mode: the leader answers as a master
// with its connected followers, a follower as a replica of the leader.
func roleCluster(c *engine.Ctx) {
	e := c.E
	v := newClusterView(e, c.Now)
	st := e.Cluster().Status()
	if v.selfLeads() {
		reps := v.connectedReplicas()
		c.W.Array(3)
		c.W.BulkString("master")
		c.W.Int(int64(st.LastLogIndex))
		c.W.Array(len(reps))
		for _, n := range reps {
			host, port := engine.SplitAddr(n.ClientAddr)
			c.W.Array(3)
			c.W.BulkString(host)
			c.W.BulkInt(int64(port))
			c.W.BulkInt(int64(n.MatchIndex))
		}
		return
	}
	m, _ := masterFor(e, &v)
	host, port := engine.SplitAddr(m.ClientAddr)
	c.W.Array(5)
	c.W.BulkString("slave")
	c.W.BulkString(host)
	c.W.Int(int64(port))
	if v.hasLeader && m.ClientAddr != "" && v.linkUp(m) {
		c.W.BulkString("connected")
	} else {
		c.W.BulkString("connect")
	}
	c.W.Int(int64(st.AppliedIndex))
}

// lastLeader is the newest leader this node saw; leaderSince when it
// became leader as far as this node saw (ms).
func lastLeader(e *engine.Engine) engine.Node { n, _ := e.LastLeader(); return n }

func leaderSince(e *engine.Engine) int64 { _, since := e.LastLeader(); return since }
