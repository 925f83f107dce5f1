package clustertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
)

// lockkvBin is the binary TestMain built.
var lockkvBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lockkv-clustertest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := build(dir); err != nil {
		fmt.Fprintf(os.Stderr, "clustertest: cannot build cmd/lockkv:\n%v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	lockkvBin = filepath.Join(dir, "lockkv")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds cmd/lockkv of this module into dir.
func build(dir string) error {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return fmt.Errorf("not inside the lockkv module")
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "lockkv"), "./cmd/lockkv")
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/lockkv: %v\n%s", err, out)
	}
	return nil
}

// node is one lockkv process of a cluster.
type node struct {
	index      int
	id         string
	clientAddr string
	raftAddr   string // bound by the node; peers reach it through its proxy
	dataDir    string
	logPath    string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the running process has exited
	starts  int
	running bool
	paused  bool
}

// cluster is an N-node lockkv cluster of separate processes on loopback.
type cluster struct {
	t     testing.TB
	nodes []*node
	net   *network
	extra []string // more flags for every node
	// password is the nodes' --requirepass, which the test's clients
	// AUTH with.
	password string
	// nodeExtra gives node i more flags of its own (certificates).
	nodeExtra func(i int) []string

	admin []*redis.Client // per node, for INFO; reconnects after restarts
}

// clusterOpts tunes newCluster.
type clusterOpts struct {
	extra []string
	// password sets every node's --requirepass.
	password string
	// nodeExtra, if set, gives node i flags of its own.
	nodeExtra func(i int) []string
}

// snapshotOften makes nodes snapshot and compact their logs every few
// hundred entries, so restarts restore snapshots and a node that was down
// catches up by InstallSnapshot.
var snapshotOften = clusterOpts{extra: []string{"--snapshot-threshold", "200", "--snapshot-interval", "500ms", "--trailing-logs", "100"}}

// steadyLeader gives the nodes the default 1 s Raft timeouts instead of the
// harness's 300 ms, for tests that need one leader throughout rather than
// test failover: with 300 ms the leader's lease is 150 ms, and a loaded
// 2-core machine stalls a process for longer than that (531 ms measured),
// so the leader steps down mid-test. Later flags win, so these override
// the harness's.
var steadyLeader = clusterOpts{extra: []string{"--raft-heartbeat-timeout", "1s", "--raft-election-timeout", "1s"}}

// newCluster starts n nodes, every one with --bootstrap and the same
// --peers, and waits for a leader.
func newCluster(t testing.TB, n int, opts ...clusterOpts) *cluster {
	t.Helper()
	c := &cluster{t: t, net: newNetwork(t, n)}
	for _, o := range opts {
		c.extra = append(c.extra, o.extra...)
		if o.password != "" {
			c.password = o.password
			c.extra = append(c.extra, "--requirepass", o.password)
		}
		if o.nodeExtra != nil {
			c.nodeExtra = o.nodeExtra
		}
	}
	base := t.TempDir()
	for i := 0; i < n; i++ {
		nd := &node{
			index:      i,
			id:         fmt.Sprintf("n%d", i+1),
			clientAddr: testnet.FreeAddr(t),
			raftAddr:   testnet.FreeAddr(t),
			dataDir:    filepath.Join(base, fmt.Sprintf("n%d", i+1)),
			logPath:    filepath.Join(base, fmt.Sprintf("n%d.log", i+1)),
		}
		if err := os.MkdirAll(nd.dataDir, 0o755); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, nd)
		c.admin = append(c.admin, redis.NewClient(&redis.Options{
			Addr: nd.clientAddr, Password: c.password, MaxRetries: -1, PoolSize: 2,
			DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
		}))
	}
	c.net.pids = c.pids
	for i, nd := range c.nodes { // once c.nodes is complete: the proxies read it
		c.net.serve(i, nd.raftAddr)
	}
	t.Cleanup(c.cleanup)
	for i := range c.nodes {
		c.start(i)
	}
	return c
}

func (c *cluster) peers() string {
	var ps []string
	for i, nd := range c.nodes {
		ps = append(ps, nd.id+"="+c.net.addr(i)+"="+nd.clientAddr)
	}
	return strings.Join(ps, ",")
}

// start launches node i's process and waits until it answers PING.
func (c *cluster) start(i int) {
	c.t.Helper()
	nd := c.nodes[i]
	args := []string{
		"--addr", nd.clientAddr,
		"--node-id", nd.id,
		"--raft-addr", nd.raftAddr,
		"--raft-advertise", c.net.addr(i),
		"--data-dir", nd.dataDir,
		"--bootstrap",
		"--peers", c.peers(),
		"--raft-heartbeat-timeout", "300ms",
		"--raft-election-timeout", "300ms",
		"--log-level", "info",
	}
	args = append(args, c.extra...)
	if c.nodeExtra != nil {
		args = append(args, c.nodeExtra(i)...)
	}
	logf, err := os.OpenFile(nd.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	nd.mu.Lock()
	if nd.running {
		nd.mu.Unlock()
		c.t.Fatalf("node %s is already running", nd.id)
	}
	nd.starts++
	nd.paused = false
	fmt.Fprintf(logf, "=== start %d: %s %s\n", nd.starts, lockkvBin, strings.Join(args, " "))
	cmd := exec.Command(lockkvBin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// The node dies with the test process, however that ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		nd.mu.Unlock()
		logf.Close()
		c.t.Fatalf("start %s: %v", nd.id, err)
	}
	done := make(chan struct{})
	nd.cmd, nd.done, nd.running = cmd, done, true
	nd.mu.Unlock()
	go func() {
		cmd.Wait()
		logf.Close()
		nd.mu.Lock()
		if nd.cmd == cmd {
			nd.running = false
		}
		nd.mu.Unlock()
		close(done)
	}()
	err = testutil.Poll(20*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.admin[i].Ping(ctx).Err()
		cancel()
		select {
		case <-done:
			c.t.Fatalf("node %s exited at start: %s", nd.id, c.logTail(i, 30))
		default:
		}
		return err
	})
	if err != nil {
		c.t.Fatalf("node %s does not answer PING after 20s: %v\n%s", nd.id, err, c.logTail(i, 30))
	}
}

// Kill sends SIGKILL to node i and waits until it is gone.
func (c *cluster) Kill(i int) {
	c.t.Helper()
	nd := c.nodes[i]
	nd.mu.Lock()
	cmd, done, running := nd.cmd, nd.done, nd.running
	nd.mu.Unlock()
	if !running {
		c.t.Fatalf("kill %s: not running", nd.id)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.t.Fatalf("node %s survives SIGKILL for 10s", nd.id)
	}
}

// Pause stops node i's process (SIGSTOP): it neither runs nor answers,
// but keeps its connections, and believes on resuming (SIGCONT) whatever
// it believed before.
func (c *cluster) Pause(i int) { c.signalPause(i, syscall.SIGSTOP, true) }

// Resume continues a paused node.
func (c *cluster) Resume(i int) { c.signalPause(i, syscall.SIGCONT, false) }

func (c *cluster) signalPause(i int, sig syscall.Signal, paused bool) {
	c.t.Helper()
	nd := c.nodes[i]
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if !nd.running {
		c.t.Fatalf("%s: not running", nd.id)
	}
	if err := nd.cmd.Process.Signal(sig); err != nil {
		c.t.Fatalf("%s: %v: %v", nd.id, sig, err)
	}
	nd.paused = paused
}

func (c *cluster) isPaused(i int) bool {
	nd := c.nodes[i]
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.paused
}

// Restart starts node i again on the same addresses and data directory.
func (c *cluster) Restart(i int) { c.t.Helper(); c.start(i) }

// Running reports whether node i's process is alive.
func (c *cluster) Running(i int) bool {
	nd := c.nodes[i]
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.running
}

// Partition cuts node i's Raft traffic in both directions; Heal restores
// every node's.
func (c *cluster) Partition(i int) { c.net.partition(i) }
func (c *cluster) Heal()           { c.net.heal() }

func (c *cluster) pids() map[int]int {
	m := map[int]int{}
	for i, nd := range c.nodes {
		nd.mu.Lock()
		if nd.running {
			m[nd.cmd.Process.Pid] = i
		}
		nd.mu.Unlock()
	}
	return m
}

func (c *cluster) cleanup() {
	for i, nd := range c.nodes {
		nd.mu.Lock()
		cmd, done, running := nd.cmd, nd.done, nd.running
		nd.mu.Unlock()
		if running {
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
		}
		c.admin[i].Close()
	}
	if c.t.Failed() {
		for i := range c.nodes {
			c.t.Logf("log of %s (last lines):\n%s", c.nodes[i].id, c.logTail(i, 40))
		}
	}
}

// logTail returns the last n lines node i logged.
func (c *cluster) logTail(i, n int) string {
	b, _ := os.ReadFile(c.nodes[i].logPath)
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// client returns a plain go-redis client of node i that never retries (a
// test decides what a failure means), closed at cleanup.
func (c *cluster) client(i int) *redis.Client {
	cl := redis.NewClient(&redis.Options{
		Addr: c.nodes[i].clientAddr, Password: c.password, MaxRetries: -1, PoolSize: 4,
		DialTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second,
	})
	c.t.Cleanup(func() { cl.Close() })
	return cl
}

// addrs lists every node's client address.
func (c *cluster) addrs() []string {
	var as []string
	for _, nd := range c.nodes {
		as = append(as, nd.clientAddr)
	}
	return as
}

// nodeByAddr returns the index of the node with client address a, or -1.
func (c *cluster) nodeByAddr(a string) int {
	for i, nd := range c.nodes {
		if nd.clientAddr == a {
			return i
		}
	}
	return -1
}

// info returns node i's INFO replication fields.
func (c *cluster) info(i int) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := c.admin[i].Info(ctx, "replication").Result()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// Leader waits (up to 30s) for a leader among the running nodes that are
// not cut off, and returns its index: a node in state leader, with the
// highest term seen, that the other reachable nodes name as leader, and
// that serves reads.
func (c *cluster) Leader() int {
	c.t.Helper()
	i, err := c.waitLeader(30 * time.Second)
	if err != nil {
		c.t.Fatal(err)
	}
	return i
}

func (c *cluster) waitLeader(d time.Duration) (int, error) {
	leader := -1
	err := testutil.Poll(d, func() error {
		i, why := c.leaderNow()
		if i < 0 {
			return errors.New(why)
		}
		leader = i
		return nil
	})
	if err != nil {
		return -1, fmt.Errorf("no leader within %v: %v", d, err)
	}
	return leader, nil
}

// leaderNow looks once; it returns -1 and what it saw when no node
// qualifies.
func (c *cluster) leaderNow() (int, string) {
	type view struct {
		i      int
		state  string
		leader string
		term   int64
	}
	var views []view
	var seen []string
	for i := range c.nodes {
		if !c.Running(i) || c.net.isCut(i) || c.isPaused(i) {
			continue
		}
		m, err := c.info(i)
		if err != nil {
			seen = append(seen, fmt.Sprintf("%s: %v", c.nodes[i].id, err))
			continue
		}
		term, _ := strconv.ParseInt(m["raft_term"], 10, 64)
		v := view{i: i, state: m["raft_state"], leader: m["raft_leader_id"], term: term}
		views = append(views, v)
		seen = append(seen, fmt.Sprintf("%s: %s term %d leader %q", c.nodes[i].id, v.state, v.term, v.leader))
	}
	sort.Slice(views, func(a, b int) bool { return views[a].term > views[b].term })
	for _, v := range views {
		if v.state != "leader" || v.leader != c.nodes[v.i].id {
			continue
		}
		if v.term < views[0].term {
			break
		}
		agree := true
		for _, o := range views {
			if o.i != v.i && o.leader != c.nodes[v.i].id {
				agree = false
			}
		}
		if !agree {
			continue
		}
		// Raft may elect a node before its engine serves as leader: it
		// must answer a read (a follower answers MOVED or CLUSTERDOWN).
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.admin[v.i].Exists(ctx, "leader:probe").Err()
		cancel()
		if err != nil {
			seen = append(seen, fmt.Sprintf("%s leads but answers %v", c.nodes[v.i].id, err))
			continue
		}
		return v.i, ""
	}
	return -1, strings.Join(seen, "; ")
}

// dump returns node i's whole keyspace as text (keys sorted; each key's
// type, content and absolute deadline), read locally: a follower answers
// after READONLY.
func (c *cluster) dump(i int) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl := redis.NewClient(&redis.Options{
		Addr: c.nodes[i].clientAddr, Password: c.password, MaxRetries: -1, PoolSize: 1,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() },
	})
	defer cl.Close()
	keys, err := cl.Keys(ctx, "*").Result()
	if err != nil {
		return "", err
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		typ, err := cl.Type(ctx, k).Result()
		if err != nil {
			return "", err
		}
		var val any
		switch typ {
		case "string":
			val, err = cl.Get(ctx, k).Result()
		case "hash":
			var m map[string]string
			m, err = cl.HGetAll(ctx, k).Result()
			val = sortedMap(m)
		case "list":
			val, err = cl.LRange(ctx, k, 0, -1).Result()
		case "zset":
			val, err = cl.ZRangeWithScores(ctx, k, 0, -1).Result()
		case "set":
			var ms []string
			ms, err = cl.SMembers(ctx, k).Result()
			sort.Strings(ms)
			val = ms
		case "none":
			continue // expired between KEYS and TYPE
		}
		if err != nil && err != redis.Nil {
			return "", err
		}
		at, err := cl.Do(ctx, "PEXPIRETIME", k).Int64()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%q %s %v expires %d\n", k, typ, val, at)
	}
	return b.String(), nil
}

func sortedMap(m map[string]string) []string {
	var s []string
	for k, v := range m {
		s = append(s, k+"="+v)
	}
	sort.Strings(s)
	return s
}

// waitConverged waits until every running node holds the same keyspace
// and has applied the same index, and returns the dump.
func (c *cluster) waitConverged(d time.Duration) string {
	c.t.Helper()
	var first string
	err := testutil.Poll(d, func() error {
		var applied string
		first = ""
		for i := range c.nodes {
			if !c.Running(i) {
				continue
			}
			m, err := c.info(i)
			if err != nil {
				return fmt.Errorf("INFO on %s: %v", c.nodes[i].id, err)
			}
			if applied == "" {
				applied = m["raft_applied_index"]
			} else if m["raft_applied_index"] != applied {
				return fmt.Errorf("applied index %s on %s, %s on the first node", m["raft_applied_index"], c.nodes[i].id, applied)
			}
			s, err := c.dump(i)
			if err != nil {
				return fmt.Errorf("dump of %s: %v", c.nodes[i].id, err)
			}
			if first == "" && i == c.firstRunning() {
				first = s
			} else if s != first {
				return fmt.Errorf("%s differs:\n%s\nfirst node:\n%s", c.nodes[i].id, s, first)
			}
		}
		return nil
	})
	if err != nil {
		c.t.Fatalf("nodes did not converge within %v: %v", d, err)
	}
	return first
}

func (c *cluster) firstRunning() int {
	for i := range c.nodes {
		if c.Running(i) {
			return i
		}
	}
	return -1
}
