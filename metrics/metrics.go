// Package metrics serves a lockkv server's metrics port: Prometheus text
// at /metrics, /health, /ready and a read-only status page. A server
// starts it when its Config.Metrics holds a *Config (cmd/lockkv's
// --metrics-addr); it is a package of its own so that a program that
// embeds a server without it does not build Prometheus's client.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/host"
)

// The metrics port: Prometheus text at /metrics,
// /health (the process serves HTTP), /ready (this node can serve: a
// standalone server that is serving, a cluster member that knows a
// leader and has applied what it committed, within ReadyMaxLag), and a
// read-only status page at /.
//
// Nothing here costs the command path anything beyond what INFO already
// counts: a scrape asks the command goroutine once, between commands, for
// a copy of its counters (observe), waits for it at most observeTimeout,
// and builds the metrics outside it. Per-command latency comes from the
// power-of-two buckets endCall fills (engine.CommandStat); Raft's
// events from the node's own instruments (host.RaftMetrics).

// observeTimeout bounds a scrape's wait for the command goroutine (a busy
// script, DEBUG SLEEP): past it the scrape reports what needs no engine
// state and lockkv_engine_responsive 0, and /ready says not ready.
const observeTimeout = 2 * time.Second

// peerDownMs is how long a member may go unheard before
// lockkv_raft_peer_reachable says 0 (INFO's link-down bound).
const peerDownMs = 5000

// defaultReadyMaxLag is ReadyMaxLag's default.
const defaultReadyMaxLag = 5 * time.Second

// Config configures the metrics port.
type Config struct {
	// Addr is the HTTP address to listen on; "" means "127.0.0.1:0".
	Addr string
	// ReadyMaxLag is the replication lag past which /ready says a cluster
	// member is not ready (default 5 s).
	ReadyMaxLag time.Duration
}

// Validate reports a setting the port could not start with.
func (c *Config) Validate() error {
	if c == nil {
		return errors.New("lockkv: a nil *metrics.Config")
	}
	if c.Addr != "" {
		if err := host.CheckAddr("metrics address", c.Addr); err != nil {
			return err
		}
	}
	if c.ReadyMaxLag < 0 {
		return fmt.Errorf("lockkv: negative ReadyMaxLag %v", c.ReadyMaxLag)
	}
	return nil
}

// port is a running metrics port.
type port struct {
	h       host.Server
	maxLag  time.Duration
	ln      net.Listener
	httpSrv *http.Server
}

// observation is what one scrape reads on the command goroutine.
type observation struct {
	cmds       []engine.CommandStat
	clients    int
	blocked    int
	keys       []int
	expires    []int
	usedMemory uint64
	stats      engine.Stats
	slowlogLen int
	locks      engine.LockCounts
	now        int64
	cluster    *clusterObservation
	// heldLocks (and truncated) are the status page's list.
	heldLocks []statusLock
	truncated bool
}

type clusterObservation struct {
	status    engine.ClusterStatus
	nodes     []engine.Node
	leader    engine.Node
	hasLeader bool
}

// observe copies the engine's counters on the command goroutine, waiting
// at most timeout. It reports false when the goroutine did not get to it
// (the copy, made later, is then dropped unread).
func (s *port) observe(timeout time.Duration) (*observation, bool) {
	return s.observeWith(timeout, false)
}

// observeWith is observe, with the status page's list of locks.
func (s *port) observeWith(timeout time.Duration, locks bool) (*observation, bool) {
	o := &observation{}
	fill := func(e *engine.Engine) {
		o.cmds = e.CommandStats(nil)
		o.clients = len(e.Clients())
		o.blocked = e.BlockedClients()
		for _, db := range e.DBs {
			o.keys = append(o.keys, db.Len())
			o.expires = append(o.expires, db.ExpiresLen())
		}
		o.usedMemory = e.UsedMemory()
		o.stats = e.Stats
		o.slowlogLen = e.SlowlogLen()
		o.locks = e.LockCounts()
		o.now = e.NowMs()
		if cl := e.Cluster(); cl != nil {
			c := &clusterObservation{status: cl.Status(), nodes: e.NodesWithLag()}
			c.leader, c.hasLeader = cl.Leader()
			o.cluster = c
		}
		if locks {
			o.heldLocks, o.truncated = heldLocks(e)
		}
	}
	if !s.h.RunWithin(timeout, fill) {
		return nil, false
	}
	return o, true
}

// StartMetrics listens on c.Addr and serves in the background until the
// Service is closed; the server calls it in Start.
func (c *Config) StartMetrics(h host.Server) (host.Service, error) {
	addr := c.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	s := &port{h: h, maxLag: c.ReadyMaxLag}
	if s.maxLag <= 0 {
		s.maxLag = defaultReadyMaxLag
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("lockkv: metrics address: %w", err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		serverCollector{s})
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogAdapter{s}}))
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/ready", s.serveReady)
	mux.HandleFunc("/", s.serveStatus)
	s.ln = ln
	s.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	h.Logger.Info("serving metrics", "addr", ln.Addr().String())
	go func() {
		if err := s.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.Logger.Warn("metrics server stopped", "err", err)
		}
	}()
	return s, nil
}

// Close closes the metrics port.
func (s *port) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.httpSrv.Shutdown(ctx)
}

// Addr is the address of the metrics port.
func (s *port) Addr() string { return s.ln.Addr().String() }

type slogAdapter struct{ s *port }

func (a slogAdapter) Println(v ...interface{}) { a.s.h.Logger.Warn("metrics: " + fmt.Sprint(v...)) }

// readiness is /ready's answer: ready, or why not.
func (s *port) readiness() (bool, string) {
	o, ok := s.observe(observeTimeout)
	if !ok {
		return false, "the command goroutine did not answer within " + observeTimeout.String()
	}
	c := o.cluster
	if c == nil {
		return true, "serving (standalone)"
	}
	switch c.status.State {
	case "removed", "shutdown":
		return false, "raft state " + c.status.State
	}
	if !c.hasLeader {
		return false, "no leader known"
	}
	var self *engine.Node
	for i := range c.nodes {
		if c.nodes[i].Self {
			self = &c.nodes[i]
		}
	}
	if self == nil {
		return false, "not a member of the cluster's configuration"
	}
	maxLag := s.maxLag
	if !self.Voter {
		return false, "a non-voter (still catching up to be promoted)"
	}
	if c.leader.ID != self.ID {
		if c.leader.LagMs < 0 || time.Duration(c.leader.LagMs)*time.Millisecond > maxLag {
			return false, "leader " + c.leader.ID + " not heard from for " + strconv.FormatInt(c.leader.LagMs, 10) + " ms"
		}
	}
	if self.ReplLagMs < 0 || time.Duration(self.ReplLagMs)*time.Millisecond > maxLag {
		return false, "lagging " + strconv.FormatInt(self.ReplLagMs, 10) + " ms behind the commit index (bound " + maxLag.String() + ")"
	}
	return true, "member of cluster " + c.status.ClusterID + ", leader " + c.leader.ID + ", " + c.status.State + ", lag " + strconv.FormatInt(self.ReplLagMs, 10) + " ms"
}

func (s *port) serveReady(w http.ResponseWriter, r *http.Request) {
	ok, why := s.readiness()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not ready: "+why)
		return
	}
	fmt.Fprintln(w, "ready: "+why)
}

// serverCollector turns an observation into metrics at scrape time.
type serverCollector struct{ s *port }

// Describe sends nothing: the collector is unchecked (the commands and
// peers it reports come and go).
func (serverCollector) Describe(chan<- *prometheus.Desc) {}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	descResponsive   = desc("lockkv_engine_responsive", "1 when the command goroutine answered this scrape within 2 s.")
	descCalls        = desc("lockkv_commands_total", "Calls of a command (INFO commandstats calls).", "cmd")
	descRejected     = desc("lockkv_commands_rejected_total", "Calls refused before they ran (INFO commandstats rejected_calls).", "cmd")
	descFailed       = desc("lockkv_commands_failed_total", "Calls that ran and answered an error (INFO commandstats failed_calls).", "cmd")
	descDuration     = desc("lockkv_command_duration_seconds", "Time a command ran on the command goroutine (waits for Raft excluded).", "cmd")
	descClients      = desc("lockkv_connected_clients", "Connected clients.")
	descBlocked      = desc("lockkv_blocked_clients", "Clients waiting in a blocking command.")
	descConnections  = desc("lockkv_connections_received_total", "Connections accepted.")
	descRejConns     = desc("lockkv_rejected_connections_total", "Connections refused (maxclients, protected mode).")
	descCommands     = desc("lockkv_commands_processed_total", "Commands processed (INFO total_commands_processed).")
	descErrors       = desc("lockkv_error_replies_total", "Error replies sent (INFO total_error_replies).")
	descNetIn        = desc("lockkv_net_input_bytes_total", "Bytes read from clients.")
	descNetOut       = desc("lockkv_net_output_bytes_total", "Bytes written to clients.")
	descExpired      = desc("lockkv_expired_keys_total", "Keys removed by expiry.")
	descHits         = desc("lockkv_keyspace_hits_total", "Successful key lookups.")
	descMisses       = desc("lockkv_keyspace_misses_total", "Failed key lookups.")
	descMemory       = desc("lockkv_memory_used_bytes", "INFO used_memory: the Go heap's live data as lockkv samples it for maxmemory.")
	descKeys         = desc("lockkv_keys", "Keys in a database.", "db")
	descExpires      = desc("lockkv_expiring_keys", "Keys with a time to live in a database.", "db")
	descSlowlog      = desc("lockkv_slowlog_length", "Entries in the slow log.")
	descLocksHeld    = desc("lockkv_locks_held", "Locks held, by layout, as of the last pass of the lock sampler over the keyspace.", "type")
	descLockHolders  = desc("lockkv_lock_holders", "Holders of held locks (a read lock or semaphore may have several), as of the last pass.", "type")
	descLockWaiters  = desc("lockkv_lock_waiters", "Waiters queued on fair locks, as of the last pass.")
	descLockPass     = desc("lockkv_lock_sample_age_seconds", "Age of the lock counts: time since the lock sampler's last completed pass.")
	descRaftState    = desc("lockkv_raft_state", "1 for this node's Raft state.", "state")
	descTerm         = desc("lockkv_raft_term", "Current Raft term.")
	descHasLeader    = desc("lockkv_raft_has_leader", "1 when this node knows a leader.")
	descIsLeader     = desc("lockkv_raft_is_leader", "1 when this node leads.")
	descLastIndex    = desc("lockkv_raft_last_log_index", "Last index in this node's Raft log.")
	descCommitIndex  = desc("lockkv_raft_commit_index", "Highest index this node knows committed.")
	descAppliedIndex = desc("lockkv_raft_applied_index", "Highest index applied to this node's keyspace.")
	descFirstIndex   = desc("lockkv_raft_first_index", "First index still in the log (after compaction).")
	descSnapIndex    = desc("lockkv_raft_last_snapshot_index", "Index of the newest snapshot.")
	descMembers      = desc("lockkv_raft_members", "Members of the Raft configuration, by suffrage.", "suffrage")
	descPeerMatch    = desc("lockkv_raft_peer_match_index", "Last log index a member holds, as it last reported (all members on the leader, itself on a follower).", "peer")
	descPeerApplied  = desc("lockkv_raft_peer_applied_index", "Last index a member applied, as it last reported.", "peer")
	descPeerLag      = desc("lockkv_raft_peer_lag_seconds", "Replication lag: age of the oldest committed write a member has not applied (0: caught up).", "peer")
	descPeerUp       = desc("lockkv_raft_peer_reachable", "1 when a member was heard from within 5 s (INFO's link up), 0 when not or never (the leader's view of every member; a follower's of the leader).", "peer")
	descLogStore     = desc("lockkv_raft_log_store_seconds", "Time to write a batch of entries to the Raft log, its fsync included (with a data dir and --raft-fsync).")
	descApply        = desc("lockkv_raft_apply_seconds", "Time to apply a batch of committed entries to the keyspace, the wait for the command goroutine included.")
	descApplied      = desc("lockkv_raft_applied_entries_total", "Committed log entries applied to the keyspace by this node.")
	descSnapPersist  = desc("lockkv_raft_snapshot_persist_seconds", "Time to write a snapshot of the keyspace to the snapshot store.")
	descSnapBytes    = desc("lockkv_raft_snapshot_size_bytes", "Size of the last snapshot this node wrote.")
	descLeaderChange = desc("lockkv_raft_leader_changes_total", "Times this node saw the cluster's leader change (a new leader known, or none).")
	descPeerContact  = desc("lockkv_raft_peer_last_contact_seconds", "Time since a member was last heard from (the leader's view; a follower knows only the leader).", "peer")
)

func (c serverCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	if node := c.s.h.Node; node != nil {
		// The node's instruments need no engine state.
		m := node.RaftMetrics()
		for _, h := range []struct {
			d *prometheus.Desc
			h *host.Histogram
		}{{descLogStore, m.LogStore}, {descApply, m.Apply}, {descSnapPersist, m.SnapshotPersist}} {
			count, sum, buckets := h.h.Read()
			ch <- prometheus.MustNewConstHistogram(h.d, count, sum, buckets)
		}
		counter(descApplied, float64(m.ApplyEntries.Load()))
		gauge(descSnapBytes, float64(m.SnapshotBytes.Load()))
		counter(descLeaderChange, float64(m.LeaderChanges.Load()))
	}
	o, ok := c.s.observe(observeTimeout)
	if !ok {
		gauge(descResponsive, 0)
		return
	}
	gauge(descResponsive, 1)
	for _, st := range o.cmds {
		counter(descCalls, float64(st.Calls), st.Name)
		counter(descRejected, float64(st.Rejected), st.Name)
		counter(descFailed, float64(st.Failed), st.Name)
		buckets := make(map[float64]uint64, len(engine.LatencyBounds))
		for i, bound := range engine.LatencyBounds {
			var n uint64 // no bucket counts while latency-tracking was no
			if st.Buckets != nil {
				n = st.Buckets[i]
			}
			buckets[float64(bound)/1e9] = n
		}
		ch <- prometheus.MustNewConstHistogram(descDuration, uint64(st.Calls), st.Seconds, buckets, st.Name)
	}
	gauge(descClients, float64(o.clients))
	gauge(descBlocked, float64(o.blocked))
	counter(descConnections, float64(o.stats.Connections))
	counter(descRejConns, float64(o.stats.RejectedConns))
	counter(descCommands, float64(o.stats.Commands))
	counter(descErrors, float64(o.stats.TotalErrorReplies))
	counter(descNetIn, float64(o.stats.NetInputBytes))
	counter(descNetOut, float64(o.stats.NetOutputBytes))
	counter(descExpired, float64(o.stats.ExpiredKeys))
	counter(descHits, float64(o.stats.KeyspaceHits))
	counter(descMisses, float64(o.stats.KeyspaceMisses))
	gauge(descMemory, float64(o.usedMemory))
	for i, n := range o.keys {
		if n > 0 || i == 0 {
			db := strconv.Itoa(i)
			gauge(descKeys, float64(n), db)
			gauge(descExpires, float64(o.expires[i]), db)
		}
	}
	gauge(descSlowlog, float64(o.slowlogLen))
	if lc := o.locks; lc.At != 0 {
		for _, t := range engine.LockTypes {
			gauge(descLocksHeld, float64(lc.Held[t]), string(t))
			gauge(descLockHolders, float64(lc.Holders[t]), string(t))
		}
		gauge(descLockWaiters, float64(lc.Waiters))
		gauge(descLockPass, float64(o.now-lc.At)/1000)
	}
	if cl := o.cluster; cl != nil {
		for _, st := range []string{"leader", "follower", "candidate", "shutdown", "removed"} {
			v := 0.0
			if cl.status.State == st {
				v = 1
			}
			gauge(descRaftState, v, st)
		}
		b := func(x bool) float64 {
			if x {
				return 1
			}
			return 0
		}
		gauge(descTerm, float64(cl.status.Term))
		gauge(descHasLeader, b(cl.hasLeader))
		gauge(descIsLeader, b(cl.status.State == "leader"))
		gauge(descLastIndex, float64(cl.status.LastLogIndex))
		gauge(descCommitIndex, float64(cl.status.CommitIndex))
		gauge(descAppliedIndex, float64(cl.status.AppliedIndex))
		gauge(descFirstIndex, float64(cl.status.FirstIndex))
		gauge(descSnapIndex, float64(cl.status.LastSnapshotIndex))
		voters, nonvoters := 0, 0
		for _, n := range cl.nodes {
			if n.Voter {
				voters++
			} else {
				nonvoters++
			}
			if n.Progress {
				gauge(descPeerMatch, float64(n.MatchIndex), n.ID)
				gauge(descPeerApplied, float64(n.AppliedIndex), n.ID)
				if n.ReplLagMs >= 0 {
					gauge(descPeerLag, float64(n.ReplLagMs)/1000, n.ID)
				}
			}
			if !n.Self && (cl.status.State == "leader" || n.Leader) {
				gauge(descPeerUp, b(n.LagMs >= 0 && n.LagMs < peerDownMs), n.ID)
				if n.LagMs >= 0 {
					gauge(descPeerContact, float64(n.LagMs)/1000, n.ID)
				}
			}
		}
		gauge(descMembers, float64(voters), "voter")
		gauge(descMembers, float64(nonvoters), "nonvoter")
	}
}
