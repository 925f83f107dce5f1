// Package lockkv is a lock server that speaks Redis: the same protocol,
// commands and Lua scripting that Redisson, redsync and redislock rely on.
//
// Embedded in a Go test:
//
//	func TestLocks(t *testing.T) {
//		srv := lockkv.RunT(t)              // real server on a free port
//		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
//		...
//		srv.Clock().FastForward(30 * time.Second) // leases run out now
//	}
//
// Unlike a fake, this is the server the lockkv binary runs: one goroutine
// owns the keyspace and runs every command in arrival order, time passes by
// itself, and a test may take control of the clock.
//
// This package brings no Raft and no Prometheus into a build: a cluster
// node is Config.Cluster set to a *replication.Config (package
// github.com/lockkv/lockkv/replication), the metrics port Config.Metrics
// set to a *metrics.Config (package github.com/lockkv/lockkv/metrics).
package lockkv
