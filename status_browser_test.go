package lockkv

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/lockscripts"
	"github.com/lockkv/lockkv/metrics"
)

// TestStatusPageInBrowser renders the status page of a 3-node cluster in
// headless Chromium and reads what a browser shows: the leader, every
// member with its progress, and the locks held. (TestMetricsCluster and
// TestMetricsStandalone check the same page over plain HTTP.)
func TestStatusPageInBrowser(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no headless Chromium on PATH (apt-get install chromium); the page is tested over HTTP by TestMetricsCluster")
	}
	tc := startClusterCfg(t, 3, func(c *Config) {
		c.Metrics = &metrics.Config{}
		// A loaded machine must not change leaders under the test.
		rc(c).HeartbeatTimeout, rc(c).ElectionTimeout = time.Second, time.Second
	})
	ctx := context.Background()
	l := tc.leader()
	lc := tc.client(l)
	if err := lc.Eval(ctx, lockscripts.Acquire, []string{"orders"}, 30000, "8f1c2a:41").Err(); err != nil && err.Error() != "redis: nil" {
		t.Fatal(err)
	}
	f := (l + 1) % 3
	for _, i := range []int{l, f} {
		waitFor(t, "the node to be ready", func() bool {
			code, _ := httpGet(t, tc.srvs[i].MetricsAddr(), "/ready")
			return code == 200
		})
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		out, err := exec.CommandContext(cctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--user-data-dir="+t.TempDir(), "--dump-dom", "http://"+tc.srvs[i].MetricsAddr()+"/").Output()
		cancel()
		if err != nil {
			t.Fatalf("chromium: %v", err)
		}
		dom := string(out)
		// The leader as the page shows it, wherever it is now.
		m := regexp.MustCompile(`<b id="leader">([^<]*)</b>`).FindStringSubmatch(dom)
		if m == nil || (m[1] != tc.peers[0].ID && m[1] != tc.peers[1].ID && m[1] != tc.peers[2].ID) {
			t.Fatalf("node %d: the page Chromium shows names no member as leader:\n%s", i, dom)
		}
		for _, want := range []string{
			`<p id="ready" class="ok">ready: member of cluster `,
			`, leader ` + m[1] + `, `,
			`<td>` + tc.peers[0].ID, `<td>` + tc.peers[1].ID, `<td>` + tc.peers[2].ID,
			`<td>orders</td><td>reentrant</td><td>8f1c2a:41 × 1<br></td>`,
		} {
			if !strings.Contains(dom, want) {
				t.Errorf("node %d: the page Chromium shows lacks %q:\n%s", i, want, dom)
			}
		}
		leads := strings.Contains(dom, `<b id="state">leader</b>`)
		if leads != (m[1] == tc.peers[i].ID) {
			t.Errorf("node %d: its state and the leader it names disagree:\n%s", i, dom)
		}
		if leads == strings.Contains(dom, "known to the leader only") {
			t.Errorf("node %d (leader %v): a leader shows every member's progress, a follower only its own:\n%s", i, leads, dom)
		}
	}
}
