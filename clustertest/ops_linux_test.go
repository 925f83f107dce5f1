package clustertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/lockscripts"
)

// A leader stopped with SIGTERM hands leadership over first: another node
// leads before it exits (status 0), and says so in its log.
func TestSIGTERMHandsOver(t *testing.T) {
	c := newCluster(t, 3)
	l := c.Leader()
	nd := c.nodes[l]
	nd.mu.Lock()
	cmd, done := nd.cmd, nd.done
	nd.mu.Unlock()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("leader %s still runs 15 s after SIGTERM", nd.id)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit status %d\n%s", code, c.logTail(l, 20))
	}
	logs, _ := os.ReadFile(nd.logPath)
	if !strings.Contains(string(logs), "leadership transferred") || !strings.Contains(string(logs), "handed leadership over before stopping") {
		t.Fatalf("no hand-over in the log:\n%s", c.logTail(l, 30))
	}
	nl := c.Leader()
	if nl == l {
		t.Fatal("the stopped node leads")
	}
	t.Logf("SIGTERM to exit: %v; new leader %s", time.Since(start), c.nodes[nl].id)
}

// TestMetricsUnderLeaderKill puts a 3-node cluster under a lock load,
// kills the leader in the middle, and checks what /metrics says after:
// a new leader, one more leader change on the survivors, the dead node's
// last contact growing, the writes counted. With -v it prints an excerpt
// of each survivor's page (what the README's "Observe" section quotes).
func TestMetricsUnderLeaderKill(t *testing.T) {
	metrics := []string{testnet.FreeAddr(t), testnet.FreeAddr(t), testnet.FreeAddr(t)}
	c := newCluster(t, 3, clusterOpts{nodeExtra: func(i int) []string { return []string{"--metrics-addr", metrics[i]} }})
	l := c.Leader()
	ctx := context.Background()
	var ok, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			owner := "client-" + string(rune('a'+w)) + ":1"
			clients := []*redis.Client{c.client(0), c.client(1), c.client(2)}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cur := c.firstRunning()
				if li, _ := c.leaderNow(); li >= 0 {
					cur = li
				}
				cl := clients[cur]
				key := "lock-" + string(rune('a'+i%16))
				ctx2, cancel := context.WithTimeout(ctx, time.Second)
				err := cl.Eval(ctx2, lockscripts.Acquire, []string{key}, 30000, owner).Err()
				if err == nil || err.Error() == "redis: nil" {
					cl.Eval(ctx2, lockscripts.Release, []string{key, "redisson_lock__channel:{" + key + "}"}, 0, 30000, owner)
					ok.Add(1)
				} else {
					failed.Add(1)
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
			}
		}(w)
	}
	time.Sleep(2 * time.Second)
	c.Kill(l)
	nl := c.Leader()
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	t.Logf("lock pairs: %d acknowledged, %d attempts failed (during the election); leader %s killed, %s leads", ok.Load(), failed.Load(), c.nodes[l].id, c.nodes[nl].id)

	keep := regexp.MustCompile(`^lockkv_(raft_(state\{state="(leader|follower)"\}|term|leader_changes_total|commit_index|applied_index|peer_\w+|members|log_store_seconds_(count|sum)|apply_seconds_(count|sum)|snapshot\w+)|commands_total\{cmd="(eval|evalsha|hincrby|pexpire|del)"\}|command_duration_seconds_(count|sum)\{cmd="eval"\}|connected_clients|locks_held\{type="reentrant"\}|lock_waiters|memory_used_bytes|keys)`)
	for _, i := range []int{nl, 3 - l - nl} {
		resp, err := http.Get("http://" + metrics[i] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		var lines []string
		for _, line := range strings.Split(page, "\n") {
			if keep.MatchString(line) {
				lines = append(lines, line)
			}
		}
		t.Logf("%s (%s) /metrics excerpt:\n%s", c.nodes[i].id, map[bool]string{true: "leader", false: "follower"}[i == nl], strings.Join(lines, "\n"))
		if v := sample(page, `lockkv_raft_leader_changes_total`); v < 2 {
			t.Errorf("%s: leader changes %v, want at least 2 (the first election and the one after the kill)", c.nodes[i].id, v)
		}
		if i == nl {
			if v := sample(page, `lockkv_raft_is_leader`); v != 1 {
				t.Errorf("new leader: lockkv_raft_is_leader %v", v)
			}
			if v := sample(page, `lockkv_raft_peer_reachable{peer="`+c.nodes[l].id+`"}`); v != 0 {
				t.Errorf("new leader: the dead node reachable = %v, want 0", v)
			}
			if v := sample(page, `lockkv_raft_peer_reachable{peer="`+c.nodes[3-l-nl].id+`"}`); v != 1 {
				t.Errorf("new leader: the live follower reachable = %v, want 1", v)
			}
			if v := sample(page, `lockkv_commands_total{cmd="eval"}`); v < 1 {
				t.Errorf("new leader counted no EVAL: %v", v)
			}
		}
		resp, err = http.Get("http://" + metrics[i] + "/ready")
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s /ready: %v %v", c.nodes[i].id, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
}

// sample is the value of one sample line of a metrics page, -1 when absent.
func sample(page, name string) float64 {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		return -1
	}
	var v float64
	if _, err := fmt.Sscan(m[1], &v); err != nil {
		return -1
	}
	return v
}
