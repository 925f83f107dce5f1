package lockkv

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/lockscripts"
	"github.com/lockkv/lockkv/metrics"
)

// httpGet fetches path from the metrics port: status code and body.
func httpGet(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b)
}

// metricValue is the value of the sample line name{labels} in a
// Prometheus text page, or false.
func metricValue(page, sample string) (float64, bool) {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

func TestMetricsStandalone(t *testing.T) {
	srv := RunTWith(t, Config{Metrics: &metrics.Config{}})
	ma := srv.MetricsAddr()
	if ma == "" {
		t.Fatal("no metrics address")
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	for i := 0; i < 3; i++ {
		if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rdb.Get(ctx, "nokey")
	if err := rdb.Eval(ctx, lockscripts.Acquire, []string{"mylock"}, 30000, "client-1:7").Err(); err != redis.Nil {
		t.Fatalf("acquire: %v", err)
	}
	rdb.Eval(ctx, lockscripts.Acquire, []string{"mylock"}, 30000, "client-1:7")
	rdb.Set(ctx, "nxlock", "token-9", 10*time.Second)

	var page string
	waitFor(t, "the lock sampler to count both locks", func() bool {
		_, page = httpGet(t, ma, "/metrics")
		r, _ := metricValue(page, `lockkv_locks_held{type="reentrant"}`)
		s, _ := metricValue(page, `lockkv_locks_held{type="string"}`)
		return r == 1 && s == 1
	})
	for sample, want := range map[string]float64{
		`lockkv_commands_total{cmd="set"}`:                            4,
		`lockkv_command_duration_seconds_count{cmd="set"}`:            4,
		`lockkv_command_duration_seconds_bucket{cmd="set",le="+Inf"}`: 4,
		// LATENCY HISTOGRAM's last bound under 1 s (541065215 ns): no SET
		// took that long.
		`lockkv_command_duration_seconds_bucket{cmd="set",le="0.541065215"}`: 4,
		`lockkv_commands_total{cmd="eval"}`:                                  2,
		`lockkv_commands_total{cmd="hincrby"}`:                               2, // run by the script
		`lockkv_connected_clients`:                                           1,
		`lockkv_keys{db="0"}`:                                                3,
		`lockkv_expiring_keys{db="0"}`:                                       2,
		`lockkv_lock_holders{type="reentrant"}`:                              1,
		`lockkv_lock_waiters`:                                                0,
		`lockkv_engine_responsive`:                                           1,
	} {
		if got, ok := metricValue(page, sample); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", sample, got, ok, want)
		}
	}
	if _, ok := metricValue(page, `lockkv_raft_term`); ok {
		t.Error("a standalone server reports Raft metrics")
	}
	if v, ok := metricValue(page, "lockkv_memory_used_bytes"); !ok || v <= 0 {
		t.Errorf("lockkv_memory_used_bytes = %v, %v", v, ok)
	}
	if !strings.Contains(page, "go_goroutines ") || !strings.Contains(page, "process_resident_memory_bytes ") {
		t.Error("the Go and process collectors are missing")
	}
	if code, body := httpGet(t, ma, "/health"); code != 200 || body != "ok\n" {
		t.Errorf("/health = %d %q", code, body)
	}
	if code, body := httpGet(t, ma, "/ready"); code != 200 || !strings.HasPrefix(body, "ready: serving (standalone)") {
		t.Errorf("/ready = %d %q", code, body)
	}
	code, body := httpGet(t, ma, "/")
	if code != 200 || !strings.Contains(body, "<td>mylock</td><td>reentrant</td><td>client-1:7 × 2<br></td>") ||
		!strings.Contains(body, "<td>nxlock</td><td>string</td><td>token-9 × 1<br></td>") || !strings.Contains(body, "standalone server") {
		t.Errorf("status page = %d\n%s", code, body)
	}
	if code, _ := httpGet(t, ma, "/nothing"); code != 404 {
		t.Errorf("/nothing = %d, want 404", code)
	}
	resp, err := http.Post("http://"+ma+"/", "text/plain", strings.NewReader("x"))
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %v, %v; want 405", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}

	// A command goroutine held past the scrape's bound: the scrape still
	// answers, says so, and /ready is 503.
	release := make(chan struct{})
	go srv.Do(func(*engine.Engine) { <-release })
	time.Sleep(50 * time.Millisecond) // let Do take the goroutine
	code, body = httpGet(t, ma, "/ready")
	page2 := ""
	_, page2 = httpGet(t, ma, "/metrics")
	close(release)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "did not answer") {
		t.Errorf("/ready with a stuck command goroutine = %d %q", code, body)
	}
	if v, ok := metricValue(page2, "lockkv_engine_responsive"); !ok || v != 0 {
		t.Errorf("lockkv_engine_responsive with a stuck command goroutine = %v, %v", v, ok)
	}
}

func TestMetricsCluster(t *testing.T) {
	tc := startClusterCfg(t, 3, func(c *Config) {
		c.Metrics = &metrics.Config{ReadyMaxLag: 2 * time.Second}
		// A loaded machine must not change leaders under the test.
		rc(c).HeartbeatTimeout, rc(c).ElectionTimeout = time.Second, time.Second
	})
	ctx := context.Background()
	l := tc.leader()
	lc := tc.client(l)
	for i := 0; i < 20; i++ {
		if err := lc.Set(ctx, "k"+strconv.Itoa(i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	f := (l + 1) % 3
	for _, i := range []int{l, f} {
		ma := tc.srvs[i].MetricsAddr()
		waitFor(t, "node "+strconv.Itoa(i)+" to be ready", func() bool {
			code, _ := httpGet(t, ma, "/ready")
			return code == 200
		})
	}
	_, page := httpGet(t, tc.srvs[l].MetricsAddr(), "/metrics")
	for _, sample := range []string{`lockkv_raft_state{state="leader"}`, `lockkv_raft_is_leader`, `lockkv_raft_has_leader`} {
		if v, ok := metricValue(page, sample); !ok || v != 1 {
			t.Errorf("leader: %s = %v, %v", sample, v, ok)
		}
	}
	commit, _ := metricValue(page, "lockkv_raft_commit_index")
	if v, ok := metricValue(page, "lockkv_raft_term"); !ok || v < 1 {
		t.Errorf("lockkv_raft_term = %v", v)
	}
	if v, ok := metricValue(page, `lockkv_raft_members{suffrage="voter"}`); !ok || v != 3 {
		t.Errorf("voters = %v", v)
	}
	// The leader knows every member's progress.
	waitFor(t, "the leader to see every follower caught up", func() bool {
		_, page = httpGet(t, tc.srvs[l].MetricsAddr(), "/metrics")
		for _, p := range tc.peers {
			m, ok := metricValue(page, `lockkv_raft_peer_applied_index{peer="`+p.ID+`"}`)
			lag, ok2 := metricValue(page, `lockkv_raft_peer_lag_seconds{peer="`+p.ID+`"}`)
			if !ok || !ok2 || m < commit || lag != 0 {
				return false
			}
		}
		return true
	})
	for _, name := range []string{"lockkv_raft_log_store_seconds_count", "lockkv_raft_apply_seconds_count", "lockkv_raft_applied_entries_total", "lockkv_raft_leader_changes_total"} {
		if v, ok := metricValue(page, name); !ok || v < 1 {
			t.Errorf("%s = %v, %v", name, v, ok)
		}
	}
	// A follower reports itself and the leader's contact, not the others'
	// progress.
	_, fpage := httpGet(t, tc.srvs[f].MetricsAddr(), "/metrics")
	if _, ok := metricValue(fpage, `lockkv_raft_peer_applied_index{peer="`+tc.peers[f].ID+`"}`); !ok {
		t.Error("a follower does not report its own progress")
	}
	other := tc.peers[3-l-f].ID
	if _, ok := metricValue(fpage, `lockkv_raft_peer_applied_index{peer="`+other+`"}`); ok {
		t.Error("a follower reports another follower's progress")
	}
	if _, ok := metricValue(fpage, `lockkv_raft_peer_last_contact_seconds{peer="`+tc.peers[l].ID+`"}`); !ok {
		t.Error("a follower does not report its contact with the leader")
	}
	info, err := tc.client(f).Info(ctx, "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info, "id="+other+",") || !strings.Contains(info, "progress=leader_only") {
		t.Errorf("INFO replication on a follower:\n%s", info)
	}
	code, body := httpGet(t, tc.srvs[f].MetricsAddr(), "/")
	if code != 200 || !strings.Contains(body, `<b id="leader">`+tc.peers[l].ID+`</b>`) || !strings.Contains(body, "known to the leader only") {
		t.Errorf("follower status page = %d\n%s", code, body)
	}

	// Stop both followers: the leader steps down (no quorum) and no node
	// is ready.
	tc.stop(f)
	tc.stop(3 - l - f)
	waitFor(t, "the lone node to be not ready", func() bool {
		code, body := httpGet(t, tc.srvs[l].MetricsAddr(), "/ready")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "no leader")
	})
}
