package replication

import (
	"io"
	"time"

	"github.com/lockkv/lockkv/internal/host"
)

// The node's instruments (host.RaftMetrics) are observed by Raft's own
// goroutines as things happen: writes to the log store (an fsync each,
// with a data dir), batches applied to the engine, snapshots persisted,
// leader changes. Each observation is a few atomic adds, off the command
// goroutine except the leader-change count. The metrics port reads them
// at scrape time (RaftMetrics), with what is state rather than events
// (term, indexes, peers' progress) from Status and Nodes.

func newMetrics() *host.RaftMetrics {
	// 50 µs to ~26 s: an fsync on a fast disk to a stalled one.
	ioBounds := host.ExponentialBounds(50e-6, 2, 20)
	return &host.RaftMetrics{
		LogStore:        host.NewHistogram(ioBounds),
		Apply:           host.NewHistogram(ioBounds),
		SnapshotPersist: host.NewHistogram(host.ExponentialBounds(1e-3, 2, 16)),
	}
}

// RaftMetrics are the node's instruments.
func (n *Node) RaftMetrics() *host.RaftMetrics { return n.metrics }

// countingSink counts what a snapshot writes.
type countingSink struct {
	io.Writer
	n int64
}

func (c *countingSink) Write(p []byte) (int, error) {
	n, err := c.Writer.Write(p)
	c.n += int64(n)
	return n, err
}

func since(t time.Time) float64 { return time.Since(t).Seconds() }
