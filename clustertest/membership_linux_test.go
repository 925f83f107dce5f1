package clustertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/replication"
)

// Membership traps, with real processes: a node started with a name but
// neither --bootstrap, --peers nor --join waits to be added instead of
// electing itself (it would grant locks the real cluster grants too); once
// added it holds the data, and once removed it logs that and exits; a
// --join with a wrong password exits at once with the reason.

// proc is a lockkv process outside the cluster's nodes.
type proc struct {
	t          testing.TB
	cmd        *exec.Cmd
	logPath    string
	clientAddr string
	raftAddr   string
	done       chan struct{}
	err        error // Wait's, once done is closed
}

// startProc starts lockkv on fresh addresses with args added.
func startProc(t testing.TB, id string, args ...string) *proc {
	t.Helper()
	dir := t.TempDir()
	p := &proc{t: t, logPath: filepath.Join(dir, id+".log"), clientAddr: testnet.FreeAddr(t), raftAddr: testnet.FreeAddr(t), done: make(chan struct{})}
	all := append([]string{"--addr", p.clientAddr, "--node-id", id, "--raft-addr", p.raftAddr,
		"--data-dir", filepath.Join(dir, "data"), "--raft-heartbeat-timeout", "300ms", "--raft-election-timeout", "300ms"}, args...)
	logf, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(lockkvBin, all...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("log of %s:\n%s", id, p.log())
		}
	})
	return p
}

func (p *proc) log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// exited waits up to d for the process to end and returns its status, or
// -1 if it still runs.
func (p *proc) exited(d time.Duration) int {
	select {
	case <-p.done:
	case <-time.After(d):
		return -1
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("wait: %v", p.err)
	}
	return 0
}

func (p *proc) client(password string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: p.clientAddr, Password: password, MaxRetries: -1, DialTimeout: time.Second})
	p.t.Cleanup(func() { c.Close() })
	return c
}

func infoMap(ctx context.Context, c *redis.Client) (map[string]string, error) {
	s, err := c.Info(ctx, "replication").Result()
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

// TestLoneNodeWaitsToBeAdded: `lockkv --node-id lone --data-dir d` does not
// make itself a cluster: for ten election timeouts it has no leader, no
// term, and refuses writes; it logs that it waits. RAFT.NODE ADD on the
// cluster's leader makes it a voter holding the data; RAFT.NODE REMOVE
// makes it log its removal and exit with status 0.
func TestLoneNodeWaitsToBeAdded(t *testing.T) {
	c := newCluster(t, 3, steadyLeader)
	ctx := context.Background()
	lone := startProc(t, "lone")
	lc := lone.client("")
	testutil.Eventually(t, 20*time.Second, func() error { return lc.Ping(ctx).Err() })
	for deadline := time.Now().Add(10 * 300 * time.Millisecond); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		m, err := infoMap(ctx, lc)
		if err != nil {
			t.Fatal(err)
		}
		if m["raft_state"] != "follower" || m["raft_term"] != "0" || m["raft_leader_id"] != "" {
			t.Fatalf("a lone node without --bootstrap: state %s, term %s, leader %q", m["raft_state"], m["raft_term"], m["raft_leader_id"])
		}
	}
	if err := lc.Set(ctx, "lock", "mine", 0).Err(); err == nil || err.Error() != engine.ErrClusterDown {
		t.Fatalf("SET on the lone node: %v", err)
	}
	if !strings.Contains(lone.log(), "it waits to be added to a cluster (RAFT.NODE ADD on the leader)") {
		t.Fatal("the lone node does not say that it waits")
	}

	l := c.Leader()
	if err := c.client(l).Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.client(l).Do(ctx, "RAFT.NODE", "ADD", "lone", lone.raftAddr, lone.clientAddr).Err(); err != nil {
		t.Fatalf("RAFT.NODE ADD: %v", err)
	}
	m, err := c.info(l)
	if err != nil {
		t.Fatal(err)
	}
	var voter bool
	for k, v := range m {
		voter = voter || strings.HasPrefix(k, "raft_peer") && strings.Contains(v, "id=lone,") && strings.Contains(v, ",voter=1,")
	}
	if !voter {
		t.Fatalf("lone is not a voter after ADD: %v", m)
	}
	if err := lc.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := lc.Get(ctx, "before").Result(); err != nil || v != "1" {
		t.Fatalf("lone right after ADD: before = %q, %v", v, err)
	}

	if err := c.client(l).Do(ctx, "RAFT.NODE", "REMOVE", "lone").Err(); err != nil {
		t.Fatalf("RAFT.NODE REMOVE: %v", err)
	}
	if code := lone.exited(20 * time.Second); code != 0 {
		t.Fatalf("the removed node: exit status %d (-1: still running)", code)
	}
	if n := strings.Count(lone.log(), replication.RemovedMsg); n != 1 {
		t.Errorf("the removed node logged its removal %d times", n)
	}
	if err := c.client(l).Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestJoinWrongPasswordExits: --join with a password the cluster refuses
// ends the process with status 1 and the reason, long before
// --join-timeout, instead of retrying.
func TestJoinWrongPasswordExits(t *testing.T) {
	c := newCluster(t, 3, clusterOpts{password: "pw"})
	l := c.Leader()
	p := startProc(t, "n4", "--join", c.nodes[l].clientAddr, "--requirepass", "wrong", "--join-timeout", "10m")
	code := p.exited(60 * time.Second)
	if code != 1 {
		t.Fatalf("exit status %d (-1: still running after 60s)", code)
	}
	want := fmt.Sprintf("%s refused this node's password (--requirepass): WRONGPASS", c.nodes[l].clientAddr)
	if !strings.Contains(p.log(), want) {
		t.Fatalf("the log does not say %q", want)
	}
	m, err := c.info(l)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fmt.Sprint(m), "id=n4,") {
		t.Fatalf("the cluster after the refused join: %v", m)
	}
}
