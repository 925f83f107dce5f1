package engine

import (
	"net"
	"strconv"
)

// Leadership as the engine remembers it for SENTINEL, CLUSTER, ROLE and
// INFO replication: the newest leader seen and the +switch-master
// announcements (LeaderChanged).

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

// NoteLeader records that n leads at now (a cluster view saw it).
func (e *Engine) NoteLeader(n Node, now int64) {
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
	old, new = e.WithClientAddr(old), e.WithClientAddr(new)
	e.NoteLeader(new, e.NowMs())
	e.sentinel.announced = new
	if old.ID == new.ID || old.ClientAddr == "" || new.ClientAddr == "" {
		return
	}
	oh, op := SplitAddr(old.ClientAddr)
	nh, np := SplitAddr(new.ClientAddr)
	msg := e.Config.SentinelMasterName + " " + oh + " " + strconv.Itoa(op) + " " + nh + " " + strconv.Itoa(np)
	publishMessage(e, "+switch-master", msg, false)
}

// WithClientAddr fills in n's client address from the membership when n
// does not carry it (a member whose address was not known yet).
func (e *Engine) WithClientAddr(n Node) Node {
	if n.ID == "" || n.ClientAddr != "" || e.cluster == nil {
		return n
	}
	for _, m := range e.cluster.Nodes() {
		if m.ID == n.ID {
			n.ClientAddr = m.ClientAddr
			break
		}
	}
	return n
}

// LastLeader is the newest leader this node saw, kept while none is
// known, and when it became leader as far as this node saw (ms; 0: none
// seen).
func (e *Engine) LastLeader() (n Node, since int64) { return e.sentinel.last, e.sentinel.since }

// SplitAddr splits a client address into host and port; an empty or
// malformed address gives "" and 0.
func SplitAddr(addr string) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", 0
	}
	return host, p
}

// Mode is INFO's redis_mode and HELLO's mode.
func (e *Engine) Mode() string {
	if e.cluster != nil {
		return "cluster"
	}
	return "standalone"
}

// helloRole is HELLO's role: a follower answers as a replica, a leader or
// a standalone server as a master. The leader seen is noted, as a cluster
// view notes it.
func (e *Engine) helloRole(now int64) string {
	if e.cluster == nil {
		return "master"
	}
	leader, ok := e.cluster.Leader()
	if ok {
		e.NoteLeader(leader, now)
	}
	if ok && leader.ID == e.cluster.Self().ID {
		return "master"
	}
	return "replica"
}
