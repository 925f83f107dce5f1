package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/store"
)

// Options is everything outside the engine that it talks to, given once
// to New, which checks them. What they name is fixed for the engine's
// life; the functions are called on the command goroutine.
type Options struct {
	// Config is the settings, already loaded (config files, flags); nil
	// is Redis's defaults. The engine owns it from then on: CONFIG SET
	// changes it, and New records Listeners and Replication in it.
	Config *config.Config
	// Clock is the engine's time source; required. On a replicated
	// engine it is the base of the clock entries are applied with.
	Clock store.Clock
	// Logger receives the engine's own log lines (a command that
	// panicked, clients closed for their buffer limits, ...); nil
	// discards them.
	Logger *slog.Logger

	// Shutdown is what SHUTDOWN calls to stop the server; it must not
	// wait for the command goroutine. nil: SHUTDOWN fails with Redis's
	// "Errors trying to SHUTDOWN".
	Shutdown func()
	// OnBusy is called from inside a script that runs past
	// busy-reply-threshold, again and again until it returns: it serves
	// the requests other clients sent meanwhile (they get -BUSY; SCRIPT
	// KILL works) and delivers replies. nil: nothing is served until the
	// script ends.
	OnBusy func()
	// ScriptLog receives redis.log lines at or above loglevel's (notice
	// by default), with the redis.LOG_* level (0 debug to 3 warning);
	// nil drops them.
	ScriptLog func(level int, msg string)
	// Rewrite is CONFIG REWRITE: it writes the running settings
	// (Config.RewriteLines) into Config.ConfigFile, which it requires.
	// nil: CONFIG REWRITE answers "The server is running without a
	// config file".
	Rewrite func() error

	// Listeners, when set, are the listeners the server bound: what
	// CONFIG GET port, tls-port, bind and tls-* report. nil leaves
	// Config's values (an engine without a network layer).
	Listeners *Listeners
	// SampleLocks starts the lock sampler, whose counts LockCounts
	// returns (the metrics port reads them).
	SampleLocks bool

	// Replication, when set, makes the engine a cluster node; nil is a
	// standalone server.
	Replication *Replication
}

// Listeners are the client listeners a server bound.
type Listeners struct {
	// Port is the plain TCP listener's port, 0 for none (TLS only).
	Port int
	// TLSPort is the TLS listener's port, 0 for none; the TLS fields
	// below are reported only with one.
	TLSPort                                int
	TLSCertFile, TLSKeyFile, TLSCACertFile string
	TLSAuthClients                         string
	// Bind is Redis's bind: the listeners' addresses, space separated.
	Bind string
}

// Replication is what a cluster node's engine talks to: the replication
// layer, in the roles it plays.
type Replication struct {
	// Cluster is the node's view of the Raft cluster; required.
	Cluster Cluster
	// Log replicates the engine's writes (Origin then marks this
	// process's ops, and must not be 0). nil with Origin 0: the engine
	// only shows Cluster (CLUSTER, SENTINEL, MOVED) and runs writes in
	// place, a discovery emulation for tests.
	Log    Replicator
	Origin uint64
	// Admin changes the membership (RAFT.NODE ADD, REMOVE and ACK); nil:
	// those answer that cluster support is disabled.
	Admin ClusterAdmin
	// Transfer moves leadership (CLUSTER FAILOVER, RAFT.NODE TRANSFER);
	// nil: those answer that cluster support is disabled.
	Transfer LeaderTransferer
	// Lag measures the members' replication lag (INFO replication's
	// lag_ms, the metrics port); nil: unknown (-1).
	Lag LagReporter
	// Forwarder, when set, makes a follower forward what it cannot run
	// to the leader instead of answering MOVED.
	Forwarder Forwarder
}

// New returns an engine as o describes, or why it cannot be one.
func New(o Options) (*Engine, error) {
	if o.Clock == nil {
		return nil, errors.New("engine: a clock is required")
	}
	cfg := o.Config
	if cfg == nil {
		cfg = config.NewConfig()
	}
	if cfg.Databases < 1 {
		return nil, fmt.Errorf("engine: %d databases: want 1 or more", cfg.Databases)
	}
	if o.Rewrite != nil && cfg.ConfigFile == "" {
		return nil, errors.New("engine: Rewrite without a config file (Config.ConfigFile)")
	}
	if r := o.Replication; r != nil {
		switch {
		case r.Cluster == nil:
			return nil, errors.New("engine: Replication without a Cluster")
		case r.Log != nil && r.Origin == 0:
			return nil, errors.New("engine: Replication with a Log needs a non-zero Origin")
		case r.Log == nil && (r.Origin != 0 || r.Forwarder != nil):
			return nil, errors.New("engine: Replication's Origin and Forwarder need a Log")
		}
	}
	if l := o.Listeners; l != nil {
		if err := l.record(cfg); err != nil {
			return nil, err
		}
	}
	e := newEngine(cfg, o.Clock)
	e.log = o.Logger
	e.srv.shutdown = o.Shutdown
	e.onBusy = o.OnBusy
	e.scriptLog = o.ScriptLog
	e.rewrite = o.Rewrite
	e.locks.on = o.SampleLocks
	if r := o.Replication; r != nil {
		e.cluster = &clusterView{Cluster: r.Cluster, e: e}
		e.admin, e.transfer, e.lag = r.Admin, r.Transfer, r.Lag
		if r.Log != nil {
			e.enableReplication(r.Log, r.Origin)
			e.repl.fwd = r.Forwarder
		}
	}
	return e, nil
}

// record sets what CONFIG GET reports of the listeners.
func (l *Listeners) record(cfg *config.Config) error {
	if l.Port < 0 || l.Port > 65535 || l.TLSPort < 0 || l.TLSPort > 65535 {
		return fmt.Errorf("engine: bad listener ports %d and %d", l.Port, l.TLSPort)
	}
	cfg.Port = l.Port // Redis's port 0: no plain TCP
	set := [][2]string{{"bind", l.Bind}}
	if l.TLSPort != 0 {
		set = append(set, [][2]string{{"tls-port", strconv.Itoa(l.TLSPort)}, {"tls-cert-file", l.TLSCertFile},
			{"tls-key-file", l.TLSKeyFile}, {"tls-ca-cert-file", l.TLSCACertFile}, {"tls-auth-clients", l.TLSAuthClients}}...)
	}
	for _, s := range set {
		if _, msg := cfg.Load(s[0], s[1]); msg != "" {
			return fmt.Errorf("engine: listener %s %q: %s", s[0], s[1], msg)
		}
	}
	return nil
}

// RewriteConfig is CONFIG REWRITE: it runs Options.Rewrite, and reports
// false when there is none (the server runs without a config file).
func (e *Engine) RewriteConfig() (ran bool, err error) {
	if e.rewrite == nil {
		return false, nil
	}
	return true, e.rewrite()
}

// Cluster is the Raft cluster this engine's server belongs to, its
// members' client addresses taken from the member registry; nil on a
// standalone server.
func (e *Engine) Cluster() Cluster {
	if e.cluster == nil {
		return nil // not a nil *clusterView
	}
	return e.cluster
}

// ClusterAdmin is Options.Replication's Admin, nil without one.
func (e *Engine) ClusterAdmin() ClusterAdmin { return e.admin }

// LeaderTransferer is Options.Replication's Transfer, nil without one.
func (e *Engine) LeaderTransferer() LeaderTransferer { return e.transfer }

// NodesWithLag is Cluster's Nodes with their replication lag, when
// Options.Replication has a Lag (else ReplLagMs stays -1); nil on a
// standalone server.
func (e *Engine) NodesWithLag() []Node {
	if e.cluster == nil {
		return nil
	}
	if e.lag == nil {
		return e.cluster.Nodes()
	}
	return e.cluster.fill(e.lag.NodesWithLag())
}
