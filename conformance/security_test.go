package conformance

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testutil"
)

// Who may connect and who may run DEBUG, against redis-servers started
// for the purpose: protected mode and enable-debug-command are fixed when
// a server starts. Clients "from afar" connect to a non-loopback address
// of this machine, so the servers see a non-loopback source address.

// outsideIP returns a non-loopback IPv4 address of this machine, or skips:
// without one no client can come from afar (engine.TestIsLocalAddr and
// TestProtectedModeDecision check the decision itself).
func outsideIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no non-loopback IPv4 address to connect from")
	return ""
}

// startLockkv runs an embedded lockkv listening on every address.
func startLockkv(t *testing.T, cfg lockkv.Config) (port int) {
	t.Helper()
	cfg.Addr = "0.0.0.0:0"
	srv, err := lockkv.NewServer(cfg)
	if err == nil {
		err = srv.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	_, p, _ := net.SplitHostPort(srv.Addr())
	port, _ = strconv.Atoi(p)
	return port
}

// pairAt connects to lockkv and Redis on host at their ports.
func pairAt(t *testing.T, host string, lport, rport int) *Pair {
	t.Helper()
	l := testutil.MustDial(t, net.JoinHostPort(host, strconv.Itoa(lport)))
	r := testutil.MustDial(t, net.JoinHostPort(host, strconv.Itoa(rport)))
	return &Pair{t: t, L: l, R: r}
}

// statCounts reads total_connections_received and rejected_connections.
func statCounts(t *testing.T, c *Conn) (conns, rejected int64) {
	t.Helper()
	v := c.MustDo(t, "INFO", "stats")
	conns, _ = strconv.ParseInt(infoField(v.Str, "total_connections_received"), 10, 64)
	rejected, _ = strconv.ParseInt(infoField(v.Str, "rejected_connections"), 10, 64)
	return conns, rejected
}

// TestProtectedMode: with protected-mode yes and no password, a client
// from another host gets Redis's DENIED explanation and is disconnected,
// counted as rejected and not as a connection; loopback clients are
// served. Redis 7.0.15 does so whatever it binds, here every address.
func TestProtectedMode(t *testing.T) {
	ip := outsideIP(t)
	_, rport := startRedisServer(t, "redis-server", "--bind", "*")
	lport := startLockkv(t, lockkv.Config{})
	admin := pairAt(t, "127.0.0.1", lport, rport)
	lConns, lRej := statCounts(t, admin.L)
	rConns, rRej := statCounts(t, admin.R)

	far := pairAt(t, ip, lport, rport)
	lv, err := far.L.Read(5 * time.Second)
	if err != nil {
		t.Fatalf("lockkv: no reply to a client from %s: %v", ip, err)
	}
	rv, err := far.R.Read(5 * time.Second)
	if err != nil {
		t.Fatalf("redis: no reply to a client from %s: %v", ip, err)
	}
	far.check("protected mode's greeting", lv, rv, Equal(lv, rv))
	if !strings.HasPrefix(rv.Str, "DENIED Redis is running in protected mode") {
		t.Fatalf("Redis answered %v", rv)
	}
	far.Closed(5 * time.Second)

	lc, lr := statCounts(t, admin.L)
	rc, rr := statCounts(t, admin.R)
	if lc-lConns != rc-rConns || lr-lRej != rr-rRej || rr-rRej != 1 {
		t.Errorf("after one denied client: lockkv %d connections %d rejected more, Redis %d and %d", lc-lConns, lr-lRej, rc-rConns, rr-rRej)
	}

	// Loopback clients are served; protected-mode no (set from there)
	// lets the others in.
	admin.Do("PING")
	admin.Do("CONFIG", "SET", "protected-mode", "no")
	admin.Do("CONFIG", "GET", "protected-mode")
	far = pairAt(t, ip, lport, rport)
	far.Do("PING")
	admin.Do("CONFIG", "SET", "protected-mode", "yes")
	// A password lifts it too.
	admin.Do("CONFIG", "SET", "requirepass", "pw")
	far = pairAt(t, ip, lport, rport)
	far.Do("PING")
	far.Do("AUTH", "pw")
	far.Do("PING")
}

// TestDebugCommandLocal: enable-debug-command local admits DEBUG from the
// loopback interface only, and the check comes before AUTH; it cannot be
// changed at run time. Under no (Redis 7's default) nobody runs DEBUG.
func TestDebugCommandLocal(t *testing.T) {
	ip := outsideIP(t)
	_, rport := startRedisServer(t, "redis-server", "--bind", "*", "--enable-debug-command", "local")
	lport := startLockkv(t, lockkv.Config{EnableDebugCommand: "local"})
	pairAt(t, "127.0.0.1", lport, rport).Do("CONFIG", "SET", "requirepass", "pw")

	far := pairAt(t, ip, lport, rport)
	far.Do("DEBUG", "SLEEP", "0") // refused before AUTH
	far.Do("AUTH", "pw")
	far.Do("DEBUG", "SLEEP", "0")
	far.Do("DEBUG", "OBJECT", "nosuch")
	far.Do("DEBUG")
	far.Do("MULTI")
	far.Do("DEBUG", "SLEEP", "0")
	far.Do("EXEC")

	local := pairAt(t, "127.0.0.1", lport, rport)
	local.Do("DEBUG", "SLEEP", "0") // allowed, then NOAUTH
	local.Do("AUTH", "pw")
	local.Do("DEBUG", "SLEEP", "0")
	local.Do("DEBUG", "OBJECT", "nosuch")
	local.Do("CONFIG", "GET", "enable-debug-command")
	local.Do("CONFIG", "SET", "enable-debug-command", "yes")
	local.Do("CONFIG", "SET", "enable-debug-command", "no")
	far.Do("DEBUG", "SLEEP", "0")
}

// TestDebugCommandDefault: Redis 7 and lockkv refuse DEBUG by default,
// from anywhere.
func TestDebugCommandDefault(t *testing.T) {
	_, rport := startRedisServer(t, "redis-server")
	srv := lockkv.RunT(t)
	_, lp, _ := net.SplitHostPort(srv.Addr())
	lport, _ := strconv.Atoi(lp)
	p := pairAt(t, "127.0.0.1", lport, rport)
	p.Do("CONFIG", "GET", "enable-debug-command")
	p.Do("DEBUG", "SLEEP", "0")
	p.Do("DEBUG", "OBJECT", "k")
	p.Do("DEBUG", "x")
	p.Do("DEBUG")
}
