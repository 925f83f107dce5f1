package engine

import "maps"

// The member registry: the client address each Raft member gives to
// clients, replicated state like the keyspace. Log entries change it
// (ApplyEntry, before the entry's ops) and snapshots carry it (the
// replication layer stores Members in its snapshot metadata and gives
// it back to SetMembers); the engine's view of the cluster (Cluster)
// takes members' client addresses from it.

// Member is a registry record: the client address a Raft member gives
// to clients. An empty ClientAddr removes the record.
type Member struct {
	ID         string
	ClientAddr string
}

// applyMembers applies an entry's registry records, in order.
func (rs *replState) applyMembers(ms []Member) {
	for _, m := range ms {
		if m.ClientAddr == "" {
			delete(rs.members, m.ID)
		} else {
			rs.members[m.ID] = m.ClientAddr
		}
	}
}

// MemberAddr is member id's client address in the registry, "" when it
// has none (or the engine is not replicated).
func (e *Engine) MemberAddr(id string) string {
	if e.repl == nil {
		return ""
	}
	return e.repl.members[id]
}

// Members returns a copy of the registry, by member ID (empty when the
// engine is not replicated).
func (e *Engine) Members() map[string]string {
	if e.repl == nil {
		return map[string]string{}
	}
	return maps.Clone(e.repl.members)
}

// SetMembers replaces the registry with m's records (restoring a
// snapshot; nil empties it).
func (e *Engine) SetMembers(m map[string]string) {
	if e.repl == nil {
		return
	}
	e.repl.members = make(map[string]string, len(m))
	for id, addr := range m {
		if addr != "" {
			e.repl.members[id] = addr
		}
	}
}

// clusterView is Options.Replication's Cluster with the members' client
// addresses taken from the registry where it has them: the replication
// layer knows only what --peers and this node's own address say, which
// stand until the registry has a record.
type clusterView struct {
	Cluster
	e *Engine
}

func (v *clusterView) Self() Node { return v.e.withMemberAddr(v.Cluster.Self()) }

func (v *clusterView) Leader() (Node, bool) {
	n, ok := v.Cluster.Leader()
	if ok {
		n = v.e.withMemberAddr(n)
	}
	return n, ok
}

func (v *clusterView) Nodes() []Node { return v.fill(v.Cluster.Nodes()) }

// fill takes the client addresses of ns from the registry.
func (v *clusterView) fill(ns []Node) []Node {
	for i := range ns {
		ns[i] = v.e.withMemberAddr(ns[i])
	}
	return ns
}

// withMemberAddr is n with the registry's client address, if it has one.
func (e *Engine) withMemberAddr(n Node) Node {
	if a := e.MemberAddr(n.ID); a != "" {
		n.ClientAddr = a
	}
	return n
}
