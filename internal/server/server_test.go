package server

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	// A server has the command families the root package imports.
	_ "github.com/lockkv/lockkv/admin"
	_ "github.com/lockkv/lockkv/commands"
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testnet"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/replication"
)

// RunT starts a server with the engine's default settings on a free
// loopback port and closes it when the test ends: lockkv.RunT without
// its TestClock, for this package's tests.
func RunT(t testing.TB) *Server {
	t.Helper()
	return runWith(t, Config{})
}

// runNode starts a cluster of one node (Raft in memory) and waits until
// it leads; addr is its client address.
func runNode(t testing.TB) (s *Server, addr string) {
	t.Helper()
	addr = testnet.FreeAddr(t)
	peers := []replication.Peer{{ID: "n1", RaftAddr: testnet.FreeAddr(t), ClientAddr: addr}}
	s = runWith(t, Config{Addr: addr, Cluster: &replication.Config{
		NodeID: "n1", RaftAddr: peers[0].RaftAddr, Bootstrap: true, Peers: peers,
		HeartbeatTimeout: 300 * time.Millisecond, ElectionTimeout: 300 * time.Millisecond,
	}})
	testutil.Eventually(t, 15*time.Second, func() error {
		var leads bool
		s.Do(func(e *engine.Engine) { leads = e.IsLeader() })
		if !leads {
			return errors.New("not leading")
		}
		return nil
	})
	return s, addr
}

// runWith starts a server for cfg with the engine's default settings
// (unless cfg.Engine is set) and the system clock, and closes it when the
// test ends.
func runWith(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Engine == nil {
		cfg.Engine = config.NewConfig()
	}
	cfg.Engine.LogLevel = new(slog.LevelVar)
	cfg.Clock = testutil.SystemClock{}
	s := New(cfg)
	if err := s.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRoundTripAllocs: a request's way through the server (its reader,
// the command goroutine, the reply written back) allocates nothing of
// the server's own, so the garbage a loaded server makes, and the GC
// assists that stall its goroutines, are the commands' alone.
func TestRoundTripAllocs(t *testing.T) {
	s := RunT(t)
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	req := []byte("*1\r\n$4\r\nPING\r\n")
	const want = "+PONG\r\n"
	buf := make([]byte, 64)
	ping := func() {
		if _, err := nc.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(nc, buf[:len(want)]); err != nil {
			t.Fatal(err)
		}
		if string(buf[:len(want)]) != want {
			t.Fatalf("reply %q", buf[:len(want)])
		}
	}
	ping()
	// An average below one: the server's timers (hz) may allocate now
	// and then, a request never.
	if allocs := testing.AllocsPerRun(2000, ping); allocs != 0 {
		t.Errorf("a PING round trip allocates %v times, want 0", allocs)
	}
}
