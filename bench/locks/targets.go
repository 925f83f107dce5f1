package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockkv/lockkv/bench"
	"github.com/lockkv/lockkv/lockscripts"
)

// target is one system under test. start brings it up and fills in where
// clients connect.
type target struct {
	name  string
	about string
	start func(e *env, o *options, t *target) error

	// Set by start.
	addr      string         // RESP targets: the address every client uses (leader, primary)
	wait      bool           // RESP targets: WAIT 1 after each lock script, pipelined with it
	endpoints []string       // etcd: client URLs
	pprof     []string       // lockkv processes' --pprof-addr, with -profile
	nodes     []*clusterNode // lockkv clusters: every node, to kill and restart (-failover)
	procs     []*proc        // every other server process of the target (redis primary and replica, etcd members)
}

// servers returns every server process of t, whose CPU time is the
// target's: a cluster's nodes as they are now (-failover restarts them)
// and its other processes.
func (t *target) servers() []*proc {
	ps := slices.Clone(t.procs)
	for _, n := range t.nodes {
		ps = append(ps, n.proc)
	}
	return ps
}

// clusterNode is one node of a lockkv cluster target.
type clusterNode struct {
	name string // process name (log file)
	addr string // client address
	args []string
	proc *proc
}

// lockkvArgs appends --pprof-addr on a free port to a lockkv process's
// arguments when -profile asks for CPU profiles.
func (t *target) lockkvArgs(o *options, args ...string) ([]string, error) {
	if o.profileDir == "" {
		return args, nil
	}
	a, err := freeAddr()
	if err != nil {
		return nil, err
	}
	t.pprof = append(t.pprof, a)
	return append(args, "--pprof-addr", a), nil
}

func (t *target) etcd() bool { return t.endpoints != nil }

// targets returns every target, in the order of the table.
func targets() []*target {
	return []*target{
		{name: "lockkv-mem", about: "lockkv, one node in memory (no --data-dir)", start: startLockkvMem},
		{name: "lockkv-1", about: "lockkv, one durable node (--data-dir: a Raft cluster of one, fsync per batch)", start: startLockkv1},
		{name: "lockkv-3", about: "lockkv, 3-node Raft cluster on loopback, data dirs on disk; clients on the leader", start: startLockkv3},
		{name: "lockkv-3-nosync", about: "lockkv-3 with --raft-fsync=false: acknowledged from a majority's page cache (survives kill -9 of every node)", start: func(e *env, o *options, t *target) error {
			return startCluster(e, o, t, append([]string{"--raft-fsync=false"}, o.lockkvFlags...)...)
		}},
		{name: "redis", about: "redis-server, no persistence (--save \"\" --appendonly no): lockkv-mem's peer", start: startRedis},
		{name: "redis-aof", about: "redis-server, appendonly yes, appendfsync always", start: startRedisAOF},
		{name: "redis-wait", about: "redis-server primary + 1 replica, each lock script followed by WAIT 1 (as Redisson does)", start: startRedisWait},
		{name: "etcd-3", about: "etcd 3-node cluster on loopback, clientv3/concurrency Mutex Lock/Unlock on a session", start: startEtcd3},
	}
}

// skipError marks a target that cannot run on this machine; the others
// still run.
type skipError struct{ why string }

func (s skipError) Error() string { return s.why }

// permanentError is an error of a server that answers, which waiting
// does not cure.
type permanentError struct{ error }

// waitFor calls f until it succeeds or fails with a permanentError, a
// process of ps exits or d passes.
func waitFor(d time.Duration, what string, ps []*proc, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return nil
		}
		if pe, ok := err.(permanentError); ok {
			return pe.error
		}
		for _, p := range ps {
			if p.exited() {
				return fmt.Errorf("%s exited while waiting for %s; its log ends:\n%s", p.name, what, p.tail(15))
			}
		}
		if time.Now().After(deadline) {
			var tails []string
			for _, p := range ps {
				tails = append(tails, p.name+":\n"+p.tail(10))
			}
			return fmt.Errorf("no %s within %v: %v\n%s", what, d, err, strings.Join(tails, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// do sends one command on a fresh connection.
func do(addr string, args ...string) (string, error) {
	c, err := bench.Dial(addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return c.Do(args...)
}

// loadScripts loads the lock scripts (EVALSHA needs them) and checks their
// digests.
func loadScripts(addr string) error {
	for _, s := range []string{lockscripts.Acquire, lockscripts.Release} {
		sha, err := do(addr, "SCRIPT", "LOAD", s)
		if err != nil {
			return err
		}
		if sha != sha1hex(s) {
			return fmt.Errorf("SCRIPT LOAD answered %q, want %s", sha, sha1hex(s))
		}
	}
	return nil
}

// ready loads the lock scripts into the RESP server at addr and checks
// that it accepts every connection the run opens: redis-server lowers its
// maxclients, with only a warning in its log, when it cannot get the file
// descriptors for them.
func ready(addr string, o *options) error {
	if err := loadScripts(addr); err != nil {
		return err
	}
	info, err := do(addr, "INFO", "clients")
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(infoFields(info)["maxclients"])
	if err != nil {
		return fmt.Errorf("INFO clients: no maxclients: %v", err)
	}
	if n < o.conns() {
		return permanentError{fmt.Errorf("maxclients is %d, below the %d connections this run opens (the open-files limit?)", n, o.conns())}
	}
	return nil
}

// infoFields parses an INFO reply.
func infoFields(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

func startLockkvMem(e *env, o *options, t *target) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	args, err := t.lockkvArgs(o, "--addr", addr, "--log-level", "warn", "--maxclients", strconv.Itoa(o.maxClients()))
	if err != nil {
		return err
	}
	p, err := e.spawn(t.name, o.lockkvBin, args...)
	if err != nil {
		return err
	}
	t.addr, t.procs = addr, []*proc{p}
	return waitFor(20*time.Second, t.name+" to load the lock scripts", []*proc{p}, func() error { return ready(addr, o) })
}

func startLockkv1(e *env, o *options, t *target) error {
	addrs, err := freeAddrs(2)
	if err != nil {
		return err
	}
	dir, err := e.mkdir(t.name)
	if err != nil {
		return err
	}
	args, err := t.lockkvArgs(o, "--addr", addrs[0], "--raft-addr", addrs[1], "--data-dir", dir, "--log-level", "warn",
		"--maxclients", strconv.Itoa(o.maxClients()))
	if err != nil {
		return err
	}
	p, err := e.spawn(t.name, o.lockkvBin, args...)
	if err != nil {
		return err
	}
	t.addr, t.procs = addrs[0], []*proc{p}
	return waitFor(20*time.Second, t.name+" to load the lock scripts", []*proc{p}, func() error { return ready(t.addr, o) })
}

// errNoCluster is what lockkv-3 reports when the lockkv binary has no
// cluster mode.
var errNoCluster = errors.New("lockkv-3 needs the cluster flags of cmd/lockkv (--node-id, --raft-addr, --data-dir, --bootstrap, --peers): this lockkv binary does not have them")

func startLockkv3(e *env, o *options, t *target) error {
	return startCluster(e, o, t, o.lockkvFlags...)
}

// startCluster starts a 3-node lockkv cluster with extra flags on every
// node.
func startCluster(e *env, o *options, t *target, extra ...string) error {
	if out, _ := exec.Command(o.lockkvBin, "--help").CombinedOutput(); !strings.Contains(string(out), "-peers") {
		return errNoCluster
	}
	addrs, err := freeAddrs(6)
	if err != nil {
		return err
	}
	var peers []string
	for i := 0; i < 3; i++ {
		peers = append(peers, fmt.Sprintf("n%d=%s=%s", i+1, addrs[3+i], addrs[i]))
	}
	var ps []*proc
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("n%d", i+1)
		dir, err := e.mkdir(filepath.Join(t.name, id))
		if err != nil {
			return err
		}
		args := append([]string{"--addr", addrs[i], "--node-id", id, "--raft-addr", addrs[3+i], "--data-dir", dir,
			"--bootstrap", "--peers", strings.Join(peers, ","), "--log-level", "warn",
			"--maxclients", strconv.Itoa(o.maxClients())}, extra...)
		if args, err = t.lockkvArgs(o, args...); err != nil {
			return err
		}
		p, err := e.spawn(t.name+"-"+id, o.lockkvBin, args...)
		if err != nil {
			return err
		}
		ps = append(ps, p)
		t.nodes = append(t.nodes, &clusterNode{name: t.name + "-" + id, addr: addrs[i], args: args, proc: p})
	}
	err = waitFor(30*time.Second, "a leader that every lockkv-3 node names", ps, func() error {
		leader, err := lockkvLeader(addrs[:3])
		if err != nil {
			return err
		}
		t.addr = leader
		return ready(leader, o)
	})
	if err != nil {
		return err
	}
	// Every node holds the scripts once the leader has them (SCRIPT LOAD is
	// in the log); the benchmark itself talks to the leader only.
	return nil
}

// lockkvLeader returns the client address of the node that says it leads
// and that every node names as leader.
func lockkvLeader(addrs []string) (string, error) {
	leader, leaderAddr := "", ""
	var seen []string
	for _, a := range addrs {
		s, err := do(a, "INFO", "replication")
		if err != nil {
			return "", fmt.Errorf("%s: %v", a, err)
		}
		m := infoFields(s)
		if m["raft_state"] == "" {
			return "", fmt.Errorf("%s: INFO replication has no raft_state", a)
		}
		seen = append(seen, fmt.Sprintf("%s %s leader %q", a, m["raft_state"], m["raft_leader_id"]))
		if m["raft_leader_id"] == "" || (leader != "" && m["raft_leader_id"] != leader) {
			return "", fmt.Errorf("nodes disagree: %s", strings.Join(seen, "; "))
		}
		leader = m["raft_leader_id"]
		if m["raft_state"] == "leader" {
			leaderAddr = a
		}
	}
	if leaderAddr == "" {
		return "", fmt.Errorf("no node is leader: %s", strings.Join(seen, "; "))
	}
	return leaderAddr, nil
}

func startRedis(e *env, o *options, t *target) error {
	return startRedisOne(e, o, t, "--save", "", "--appendonly", "no")
}

func startRedisAOF(e *env, o *options, t *target) error {
	return startRedisOne(e, o, t, "--save", "", "--appendonly", "yes", "--appendfsync", "always")
}

// startRedisOne starts one redis-server with the persistence flags given.
func startRedisOne(e *env, o *options, t *target, persistence ...string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	dir, err := e.mkdir(t.name)
	if err != nil {
		return err
	}
	args := append([]string{"--port", port(addr), "--bind", "127.0.0.1", "--dir", dir,
		"--maxclients", strconv.Itoa(o.maxClients())}, persistence...)
	p, err := e.spawn(t.name, o.redisBin, args...)
	if err != nil {
		return err
	}
	t.addr, t.procs = addr, []*proc{p}
	return waitFor(20*time.Second, t.name+" to load the lock scripts", []*proc{p}, func() error { return ready(addr, o) })
}

func startRedisWait(e *env, o *options, t *target) error {
	addrs, err := freeAddrs(2)
	if err != nil {
		return err
	}
	var ps []*proc
	for i, role := range []string{"primary", "replica"} {
		dir, err := e.mkdir(filepath.Join(t.name, role))
		if err != nil {
			return err
		}
		args := []string{"--port", port(addrs[i]), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no",
			"--maxclients", strconv.Itoa(o.maxClients())}
		if role == "replica" {
			args = append(args, "--replicaof", "127.0.0.1", port(addrs[0]))
		}
		p, err := e.spawn(t.name+"-"+role, o.redisBin, args...)
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	t.addr, t.wait, t.procs = addrs[0], true, ps
	return waitFor(30*time.Second, "the replica to acknowledge a write (WAIT 1)", ps, func() error {
		if err := ready(t.addr, o); err != nil {
			return err
		}
		c, err := bench.Dial(t.addr)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Do("SET", "lockkv-bench:probe", "1"); err != nil {
			return err
		}
		n, err := c.Do("WAIT", "1", "200")
		if err != nil {
			return err
		}
		if n != "1" {
			return fmt.Errorf("WAIT 1 200 answered %s", n)
		}
		_, err = c.Do("DEL", "lockkv-bench:probe")
		return err
	})
}

// etcdMissing tells the user how to get etcd.
const etcdMissing = "etcd not found in PATH (or at -etcd): install it with\n" +
	"        apt-get install -y etcd-server etcd-client\n" +
	"    (Debian's etcd 3.4; the Debian package also enables a systemd unit you may want to stop)"

func startEtcd3(e *env, o *options, t *target) error {
	bin, err := exec.LookPath(o.etcdBin)
	if err != nil {
		return skipError{etcdMissing}
	}
	addrs, err := freeAddrs(6)
	if err != nil {
		return err
	}
	var cluster []string
	for i := 0; i < 3; i++ {
		cluster = append(cluster, fmt.Sprintf("e%d=http://%s", i+1, addrs[3+i]))
	}
	var ps []*proc
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("e%d", i+1)
		dir, err := e.mkdir(filepath.Join(t.name, name))
		if err != nil {
			return err
		}
		client, peer := "http://"+addrs[i], "http://"+addrs[3+i]
		p, err := e.spawn(t.name+"-"+name, bin,
			"--name", name, "--data-dir", dir,
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", strings.Join(cluster, ","), "--initial-cluster-state", "new",
			"--initial-cluster-token", "lockkv-bench", "--logger", "zap", "--log-level", "warn")
		if err != nil {
			return err
		}
		ps = append(ps, p)
		t.endpoints = append(t.endpoints, client)
	}
	t.procs = ps
	return waitFor(30*time.Second, "an etcd leader that every member knows", ps, func() error {
		cli, err := newEtcdClient(t.endpoints)
		if err != nil {
			return err
		}
		defer cli.Close()
		var leader uint64
		for _, ep := range t.endpoints {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			st, err := cli.Status(ctx, ep)
			cancel()
			if err != nil {
				return fmt.Errorf("%s: %v", ep, err)
			}
			if st.Leader == 0 || (leader != 0 && st.Leader != leader) {
				return fmt.Errorf("%s: leader %x", ep, st.Leader)
			}
			leader = st.Leader
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = cli.Put(ctx, "/lockkv-bench/probe", strconv.FormatInt(time.Now().UnixNano(), 10))
		return err
	})
}
