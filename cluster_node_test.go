package lockkv

import (
	"testing"

	"github.com/lockkv/lockkv/replication"
)

// Tests reach into a cluster node through these: the root package itself
// knows its node only as a host.Node.

// Node is the server's Raft node, nil on a standalone server.
func (s *Server) Node() *replication.Node {
	n, _ := s.srv.Node().(*replication.Node)
	return n
}

// rc is c's cluster configuration, a *replication.Config.
func rc(c *Config) *replication.Config { return c.Cluster.(*replication.Config) }

// mustNewServer is NewServer, failing t on a setting it refuses.
func mustNewServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
