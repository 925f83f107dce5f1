package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNodeLockClients runs Node's ioredis and redlock, unchanged, against
// lockkv and against the reference Redis (clients/node/locks.mjs): redlock's
// mutual exclusion, extend and unlock; a Redisson-style reentrant lock
// through ioredis's defineCommand (EVALSHA, EVAL on NOSCRIPT); the unlock
// message reaching an ioredis subscriber. Both servers must pass. The
// packages come from clients/node/package-lock.json (npm ci, which .ci/run
// does; the test runs it when node_modules is missing).
func TestNodeLockClients(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: ioredis and redlock are not tested")
	}
	dir, err := filepath.Abs(filepath.Join("clients", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "redlock")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("npm is not installed and clients/node/node_modules is missing")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--silent")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	servers := map[string]string{"lockkv": LockkvAddr()}
	if RedisAddr() != "" {
		servers["redis"] = RedisAddr()
	}
	for name, addr := range servers {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(node, filepath.Join(dir, "locks.mjs"), addr)
			cmd.Dir = dir
			timer := time.AfterFunc(60*time.Second, func() {
				if cmd.Process != nil {
					cmd.Process.Kill()
				}
			})
			defer timer.Stop()
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "ok" {
				t.Fatalf("node locks.mjs against %s (%s): %v\n%s", name, addr, err, out)
			}
		})
	}
}
