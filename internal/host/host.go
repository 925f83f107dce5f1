// Package host is the contract between a lockkv server (the root
// package's Config, run by internal/server) and the parts it starts only
// when configured to: the cluster node (package replication, behind
// Config.Cluster) and the metrics port (package metrics, behind
// Config.Metrics). Those packages implement the root package's interfaces
// with these types, so neither the root package nor internal/server
// imports Raft or Prometheus and a program that embeds a single server
// builds neither.
package host

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/store"
)

// Server is what a server gives the parts it starts.
type Server struct {
	// Run runs fn on the command goroutine, between commands, and waits
	// for it; it reports false when the server stopped before fn ran.
	Run func(fn func(e *engine.Engine)) bool
	// RunWithin is Run waiting at most timeout for fn to be taken up and
	// to finish; false when it was not (fn may still run later, and must
	// then only touch what the caller no longer reads).
	RunWithin func(timeout time.Duration, fn func(e *engine.Engine)) bool
	// Clock is the server's time source.
	Clock store.Clock
	// Logger is the server's logger (its level follows CONFIG SET
	// loglevel).
	Logger *slog.Logger
	// Password is the server's requirepass ("" without one).
	Password string
	// ClientTLS is the configuration to dial the other members' client
	// ports with when they serve TLS only (Config.TLSOnly); nil dials
	// plain TCP.
	ClientTLS *tls.Config
	// Stalled reports how long the command goroutine has been held by
	// work only this node does (0 while it waits or applies the log).
	Stalled func() time.Duration
	// Node is the server's cluster node, nil on a standalone server.
	Node Node
}

// Node is a cluster node as the server drives it. Its engine-facing
// methods (the roles of engine.Replication) are called on the command
// goroutine and never block.
type Node interface {
	engine.Cluster
	engine.Replicator
	engine.LagReporter
	engine.ClusterAdmin
	engine.LeaderTransferer
	// Origin is the number that marks this process's ops in the log.
	Origin() uint64
	// Forwarder is what a follower forwards commands through, nil when
	// it answers MOVED instead.
	Forwarder() engine.Forwarder
	// Open checks, locks and opens the node's stores, before the server
	// listens for clients.
	Open() error
	// Start starts Raft once the command goroutine runs; clientAddr is
	// the server's client address.
	Start(clientAddr string) error
	// Shutdown stops the node; the command goroutine still runs.
	Shutdown() error
	// Removed is closed once the node was removed from its cluster.
	Removed() <-chan struct{}
	// HandOver asks another member to lead when this node does, and
	// reports whether one did within timeout.
	HandOver(timeout time.Duration) bool
	// RaftMetrics are the node's instruments.
	RaftMetrics() *RaftMetrics
}

// Service is a part the server started and Close stops (the metrics
// port).
type Service interface {
	// Addr is the address it listens on.
	Addr() string
	// Close stops it.
	Close() error
}
