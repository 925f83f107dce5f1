package lockkv

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/host"
	"github.com/lockkv/lockkv/internal/server"
	"github.com/lockkv/lockkv/store"
)

// Config configures a Server. The zero value listens on a free loopback
// port with Redis's defaults.
type Config struct {
	// Addr is the TCP address to listen on; "" means "127.0.0.1:0".
	Addr string
	// RequirePass, when set, makes clients AUTH first.
	RequirePass string
	// Databases is the number of databases (default 16).
	Databases int
	// MaxClients bounds concurrent clients (default 10000).
	MaxClients int
	// Clock is the server's time source; nil means the system clock. Use a
	// *TestClock to move time in tests.
	Clock store.Clock
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Cluster, when set, makes the server a node of a Raft cluster (a
	// cluster of one with a data directory is a durable single server):
	// a *replication.Config. Package replication brings in Raft and its
	// stores; a program that leaves Cluster nil does not build them.
	Cluster ClusterConfig
	// ReadMode is how a cluster node serves reads: "linearizable"
	// (default), "lease" or "stale"; anything else is an error.
	ReadMode string
	// SentinelMasterName is the master name a cluster node answers SENTINEL
	// for (get-master-addr-by-name and the like); "" is "mymaster".
	SentinelMasterName string
	// LogLevel is the level below which logs are dropped (CONFIG SET
	// loglevel moves it; Logger's own handler may drop more). The zero
	// value is Info, Redis's notice.
	LogLevel slog.Level

	// EnableDebugCommand is enable-debug-command: "no" (the default, as in
	// Redis 7), "yes", or "local" (only clients of the loopback
	// interface). Tests that send DEBUG set it.
	EnableDebugCommand string
	// EnableProtectedConfigs is enable-protected-configs, likewise: who
	// may CONFIG SET dir and dbfilename (which lockkv still only accepts
	// unchanged).
	EnableProtectedConfigs string
	// ProtectedMode is protected-mode: "yes" (the default) or "no". With
	// it, and no RequirePass, clients from other hosts are turned away
	// with Redis's DENIED message, whatever the listen address.
	ProtectedMode string

	// TLSAddr is the address the TLS listener listens on (Redis's
	// tls-port); TLS is on when TLSCertFile is set, and "" then means
	// "127.0.0.1:0".
	TLSAddr string
	// TLSCertFile and TLSKeyFile are the server's certificate and key
	// (PEM), tls-cert-file and tls-key-file.
	TLSCertFile, TLSKeyFile string
	// TLSCACertFile is tls-ca-cert-file: the authority client certificates
	// are checked against, and on a TLSOnly cluster node the one the other
	// members' certificates are checked against.
	TLSCACertFile string
	// TLSAuthClients is tls-auth-clients: "yes" (a client certificate is
	// required; the default when TLSCACertFile is set), "optional"
	// (checked when given) or "no" (the default without a CA file).
	TLSAuthClients string
	// TLSOnly serves clients on the TLS listener only (cmd/lockkv:
	// --addr ""); a cluster node then dials the other members' client
	// ports with TLS too.
	TLSOnly bool

	// LoadRDB is an RDB file (a redis-server dump.rdb, or lockkv's SAVE)
	// to start from: its keys not yet expired and its function libraries.
	// A standalone server loads it before it serves; a bad file fails
	// Start. A cluster node loads it through the log, once it leads, and
	// only into an empty keyspace (so a restart does not load it again):
	// it replays the file as RESTORE and FUNCTION RESTORE commands on a
	// client connection to itself.
	LoadRDB string

	// Settings are CONFIG settings applied as the server starts, in
	// order, as a config file's lines are (maxmemory, timeout, hz, ...):
	// validated as CONFIG SET validates them, immutable ones included,
	// and refused where CONFIG SET would refuse the value. They are
	// applied after the fields above.
	Settings []Setting
	// ConfigFile is the absolute path of the config file the server was
	// started from: INFO's config_file, and the file CONFIG REWRITE
	// rewrites. Without it CONFIG REWRITE answers Redis's "The server is
	// running without a config file".
	ConfigFile string
	// Metrics, when set, is the HTTP port serving /metrics (Prometheus),
	// /health, /ready and a read-only status page: a *metrics.Config
	// (package metrics, which brings in Prometheus's client).
	Metrics MetricsConfig

	// ConfigDirectives are the directives ConfigFile may hold besides
	// CONFIG settings (cmd/lockkv's flags): CONFIG REWRITE keeps their
	// lines as they are, or, for a name mapped to a setting's name
	// ("log-level": "loglevel"), rewrites them as that setting. Other
	// lines that are no setting become "# ??? " comments, as in Redis.
	ConfigDirectives map[string]string

	// SlowRequestThreshold and OnSlowRequest report every pipeline whose
	// replies were written SlowRequestThreshold or longer after its bytes
	// reached the host, with where the time went (SlowRequest); 0 or nil
	// (the default) times nothing. OnSlowRequest runs on the event
	// loop's goroutine (plain TCP on Linux) or the client's connection
	// goroutine (TLS, other systems): it must return quickly. Pipelines
	// of a client that blocks (BLPOP, WAIT, CLIENT PAUSE) are not timed;
	// on a connection goroutine, nor are a cluster node's writes whose
	// replies its connection's writer goroutine writes (when their
	// commit came after the reader went back to reading).
	// cmd/lockkv's --slow-trace-dir uses them.
	SlowRequestThreshold time.Duration
	OnSlowRequest        func(SlowRequest)
}

// SlowRequest is a pipeline whose replies left late (Config.OnSlowRequest).
// Took is from the host's kernel receiving its last bytes to its replies
// written to the socket; the phases add up to it.
type SlowRequest struct {
	// Client is the client's address; Commands the pipeline's length.
	Client   string
	Commands int
	Took     time.Duration
	// Read: waiting for the connection's reader to read the bytes.
	// Queued: until the command goroutine took the pipeline up (the
	// work ahead of it). Run: until its replies were ready (its
	// commands, and the rest of the command goroutine's round, whose
	// replies go out together). Reply: until they were written (the
	// reader running again, the write).
	Read, Queued, Run, Reply time.Duration
}

// ClusterConfig is what Config.Cluster holds: *replication.Config is
// the implementation. NewServer calls Validate; Start calls NewNode.
type ClusterConfig interface {
	Validate() error
	NewNode(host.Server) (host.Node, error)
}

// MetricsConfig is what Config.Metrics holds: *metrics.Config is the
// implementation. NewServer calls Validate; Start calls StartMetrics
// once the server serves, and Close closes what it returned.
type MetricsConfig interface {
	Validate() error
	StartMetrics(host.Server) (host.Service, error)
}

// Setting is a CONFIG setting with its arguments as a config file line
// gives them ("client-output-buffer-limit", "pubsub", "64mb", "16mb", "60").
type Setting struct {
	Name string
	Args []string
}

// NewServer returns a server for cfg; Start makes it listen. A setting
// no server could start with is an error here: a value outside its
// choices (ReadMode, ProtectedMode, TLSAuthClients, ...), an address that
// is not host:port, settings that contradict each other, a Settings line
// CONFIG SET would refuse, and what Cluster's and Metrics' Validate
// report. Files (TLS, LoadRDB, a data directory) are read by Start.
func NewServer(cfg Config) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	level := new(slog.LevelVar)
	level.Set(cfg.LogLevel)
	ecfg := config.NewConfig()
	ecfg.LogLevel = level
	if cfg.EnableDebugCommand != "" {
		ecfg.EnableDebugCommand = cfg.EnableDebugCommand
	}
	if cfg.EnableProtectedConfigs != "" {
		ecfg.EnableProtectedConfigs = cfg.EnableProtectedConfigs
	}
	ecfg.ProtectedMode = cfg.ProtectedMode != "no"
	if cfg.Databases > 0 {
		ecfg.Databases = cfg.Databases
	}
	if cfg.MaxClients > 0 {
		ecfg.MaxClients = cfg.MaxClients
	}
	ecfg.RequirePass = cfg.RequirePass
	if cfg.ReadMode != "" {
		ecfg.ReadMode = cfg.ReadMode
	}
	if cfg.SentinelMasterName != "" {
		ecfg.SentinelMasterName = cfg.SentinelMasterName
	}
	for _, st := range cfg.Settings {
		if msg := ecfg.LoadDirective(st.Name, st.Args); msg != "" {
			return nil, fmt.Errorf("lockkv: %s %s: %s", st.Name, strings.Join(st.Args, " "), msg)
		}
	}
	if cfg.ConfigFile != "" {
		ecfg.ConfigFile = cfg.ConfigFile
	}
	s := &Server{clock: cfg.Clock, srv: server.New(server.Config{
		Addr:             cfg.Addr,
		RequirePass:      cfg.RequirePass,
		Clock:            cfg.Clock,
		Logger:           cfg.Logger,
		Engine:           ecfg,
		Cluster:          cfg.Cluster,
		Metrics:          cfg.Metrics,
		TLSAddr:          cfg.TLSAddr,
		TLSCertFile:      cfg.TLSCertFile,
		TLSKeyFile:       cfg.TLSKeyFile,
		TLSCACertFile:    cfg.TLSCACertFile,
		TLSAuthClients:   cfg.TLSAuthClients,
		TLSOnly:          cfg.TLSOnly,
		LoadRDB:          cfg.LoadRDB,
		ConfigFile:       cfg.ConfigFile,
		ConfigDirectives: cfg.ConfigDirectives,

		SlowRequestThreshold: cfg.SlowRequestThreshold,
		OnSlowRequest:        onSlowRequest(cfg.OnSlowRequest),
	})}
	if tc, ok := cfg.Clock.(*TestClock); ok {
		tc.attach(s)
	}
	return s, nil
}

// check reports the settings no server could start with (NewServer).
// onSlowRequest is f for the server's reports; nil for nil.
func onSlowRequest(f func(SlowRequest)) func(server.SlowRequest) {
	if f == nil {
		return nil
	}
	return func(r server.SlowRequest) { f(SlowRequest(r)) }
}

func (cfg *Config) check() error {
	if cfg.SlowRequestThreshold < 0 {
		return fmt.Errorf("lockkv: SlowRequestThreshold %v is negative", cfg.SlowRequestThreshold)
	}
	for _, v := range []struct{ name, v string }{
		{"enable-debug-command", cfg.EnableDebugCommand},
		{"enable-protected-configs", cfg.EnableProtectedConfigs},
	} {
		if v.v != "" && !config.ValidProtectedAction(v.v) {
			return fmt.Errorf("lockkv: bad %s %q: want no, yes or local", v.name, v.v)
		}
	}
	switch cfg.ProtectedMode {
	case "", "yes", "no":
	default:
		return fmt.Errorf("lockkv: bad protected-mode %q: want yes or no", cfg.ProtectedMode)
	}
	switch cfg.ReadMode {
	case "", config.ReadLinearizable, config.ReadLease, config.ReadStale:
	default:
		return fmt.Errorf("lockkv: bad read mode %q: want %s, %s or %s", cfg.ReadMode, config.ReadLinearizable, config.ReadLease, config.ReadStale)
	}
	switch cfg.TLSAuthClients {
	case "", "yes", "optional", "no":
	default:
		return fmt.Errorf("lockkv: bad tls-auth-clients %q: want yes, no or optional", cfg.TLSAuthClients)
	}
	if cfg.Databases < 0 {
		return fmt.Errorf("lockkv: bad Databases %d: want 1 or more (0: the default, 16)", cfg.Databases)
	}
	if cfg.MaxClients < 0 {
		return fmt.Errorf("lockkv: bad MaxClients %d: want 1 or more (0: the default, 10000)", cfg.MaxClients)
	}
	if cfg.Addr != "" {
		if cfg.TLSOnly {
			return errors.New("lockkv: TLSOnly serves no plain TCP: Addr must be empty")
		}
		if err := host.CheckAddr("address", cfg.Addr); err != nil {
			return err
		}
	}
	if cfg.TLSAddr != "" {
		if err := host.CheckAddr("TLS address", cfg.TLSAddr); err != nil {
			return err
		}
	}
	if cfg.TLSCertFile != "" || cfg.TLSKeyFile != "" {
		if cfg.TLSCertFile == "" || cfg.TLSKeyFile == "" {
			return errors.New("lockkv: TLS needs both a certificate file and a key file")
		}
	} else {
		if cfg.TLSOnly {
			return errors.New("lockkv: TLSOnly without a TLS certificate: no listener would serve clients")
		}
		if cfg.TLSAddr != "" || cfg.TLSCACertFile != "" || cfg.TLSAuthClients != "" {
			return errors.New("lockkv: TLSAddr, TLSCACertFile and TLSAuthClients need TLSCertFile and TLSKeyFile")
		}
	}
	if cfg.Cluster != nil {
		if err := cfg.Cluster.Validate(); err != nil {
			return err
		}
	}
	if cfg.Metrics != nil {
		if err := cfg.Metrics.Validate(); err != nil {
			return err
		}
	}
	return nil
}
