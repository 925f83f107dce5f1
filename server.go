package lockkv

import (
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/server"
	"github.com/lockkv/lockkv/store"
)

// Server is a lockkv server.
type Server struct {
	// srv runs it: listeners, connections, the command goroutine.
	srv   *server.Server
	clock store.Clock
}

// Start listens on the configured addresses and serves clients in the
// background. A cluster node first checks, locks and opens its data
// directory, so that a directory in use or unusable is an error before
// the client port opens.
func (s *Server) Start() error { return s.srv.Start() }

// Addr returns the address the server listens on for plain TCP
// ("127.0.0.1:port"); "" when it serves TLS only.
func (s *Server) Addr() string { return s.srv.Addr() }

// TLSAddr returns the address of the TLS listener, "" without one.
func (s *Server) TLSAddr() string { return s.srv.TLSAddr() }

// Do runs fn on the command goroutine, between commands, and waits for it.
// It is how embedding code and tests touch the keyspace directly.
func (s *Server) Do(fn func(e *engine.Engine)) { s.srv.Do(fn) }

// Removed is closed once this cluster node was removed from its cluster
// (RAFT.NODE REMOVE); nil on a standalone server, and before Start.
func (s *Server) Removed() <-chan struct{} { return s.srv.Removed() }

// HandOver asks another member to lead when this cluster node leads
// (before a planned stop) and reports whether one did within timeout;
// false on a standalone server.
func (s *Server) HandOver(timeout time.Duration) bool { return s.srv.HandOver(timeout) }

// MetricsAddr is the address of the metrics port, "" without one.
func (s *Server) MetricsAddr() string { return s.srv.MetricsAddr() }

// Close stops listening, closes every connection and stops the command
// goroutine. It waits for all of them.
func (s *Server) Close() error { return s.srv.Close() }

// Done is closed once the server has shut down (Close, or a client's
// SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.srv.Done() }

// cronNow asks the command goroutine to run its periodic work now (after a
// test moved the clock).
func (s *Server) cronNow() {
	s.Do(func(e *engine.Engine) { e.Cron() })
}
