package conformance

import (
	"os/exec"
	"testing"
)

// StartRedisServer starts a redis-server from PATH on a free loopback
// port, persistence off, as the suite starts its own, and stops it when
// the test ends. Other packages (lock/) run their cases against a real
// Redis with it. Without redis-server installed the test skips, loudly;
// one that is installed but does not start fails it.
func StartRedisServer(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("SKIPPED: no redis-server on PATH to run against (apt-get install -y redis-server)")
	}
	addr, stop, err := startRedis()
	if err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(stop)
	return addr
}
