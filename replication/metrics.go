package replication

import (
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the node's Prometheus instruments that Raft's own
// goroutines observe as things happen: writes to the log store (an fsync
// each, with a data dir), batches applied to the engine, snapshots
// persisted, leader changes. Each observation is a few atomic adds, off
// the command goroutine except the leader-change count. What is state
// rather than events (term, indexes, peers' progress) is read at scrape
// time from Status and Nodes.
type Metrics struct {
	LogStore        prometheus.Histogram
	Apply           prometheus.Histogram
	ApplyEntries    prometheus.Counter
	SnapshotPersist prometheus.Histogram
	SnapshotBytes   prometheus.Gauge
	LeaderChanges   prometheus.Counter
}

func newMetrics() *Metrics {
	// 50 µs to ~26 s: an fsync on a fast disk to a stalled one.
	ioBuckets := prometheus.ExponentialBuckets(50e-6, 2, 20)
	return &Metrics{
		LogStore: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "lockkv_raft_log_store_seconds",
			Help:    "Time to write a batch of entries to the Raft log, its fsync included (with a data dir and --raft-fsync).",
			Buckets: ioBuckets,
		}),
		Apply: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "lockkv_raft_apply_seconds",
			Help:    "Time to apply a batch of committed entries to the keyspace, the wait for the command goroutine included.",
			Buckets: ioBuckets,
		}),
		ApplyEntries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lockkv_raft_applied_entries_total",
			Help: "Committed log entries applied to the keyspace by this node.",
		}),
		SnapshotPersist: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "lockkv_raft_snapshot_persist_seconds",
			Help:    "Time to write a snapshot of the keyspace to the snapshot store.",
			Buckets: prometheus.ExponentialBuckets(1e-3, 2, 16),
		}),
		SnapshotBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "lockkv_raft_snapshot_size_bytes",
			Help: "Size of the last snapshot this node wrote.",
		}),
		LeaderChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lockkv_raft_leader_changes_total",
			Help: "Times this node saw the cluster's leader change (a new leader known, or none).",
		}),
	}
}

// Collectors are the node's instruments, for a registry.
func (n *Node) Collectors() []prometheus.Collector {
	m := n.metrics
	return []prometheus.Collector{m.LogStore, m.Apply, m.ApplyEntries, m.SnapshotPersist, m.SnapshotBytes, m.LeaderChanges}
}

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
