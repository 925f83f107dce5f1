package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// options are the server's flags.
type options struct {
	addr, requirepass            string
	databases, maxClients        int
	logLevel, logFormat, logFile string
	protectedMode, debugCommand  string
	protectedConfigs             string
	loadRDB                      string
	tlsAddr, tlsCert, tlsKey     string
	tlsCA, tlsAuthClients        string
	nodeID, raftAddr             string
	raftAdvertise, advertise     string
	dataDir                      string
	bootstrap                    bool
	peers, join                  string
	joinTimeout                  time.Duration
	forward                      bool
	readMode, masterName         string
	heartbeat, election          time.Duration
	snapThreshold                uint64
	snapInterval                 time.Duration
	raftFsync                    bool
	logStore                     string
	trailingLogs                 uint64
	raftSecret                   string
	raftTLSCert, raftTLSKey      string
	raftTLSCA                    string
	pprofAddr                    string
	slowTraceDir                 string
	slowTraceThreshold           time.Duration
	metricsAddr                  string
	readyMaxLag                  time.Duration
	version                      bool
}

// newFlagSet defines the server's flags into o.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("lockkv", flag.ContinueOnError)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:6379", "TCP address to listen on; \"\" serves TLS only (--tls-addr)")
	fs.StringVar(&o.requirepass, "requirepass", "", "password clients must AUTH with")
	fs.IntVar(&o.databases, "databases", 16, "number of databases")
	fs.IntVar(&o.maxClients, "maxclients", 10000, "maximum number of connected clients")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error (or Redis's debug, verbose, notice, warning); CONFIG SET loglevel changes it")
	fs.StringVar(&o.logFormat, "log-format", "text", "log line format: text (key=value) or json (one JSON object a line)")
	fs.StringVar(&o.logFile, "logfile", "", "file to append the log to (Redis's logfile); \"\" logs to stderr")

	fs.StringVar(&o.protectedMode, "protected-mode", "yes", "yes: without --requirepass, only clients of the loopback interface are served (Redis's protected-mode)")
	fs.StringVar(&o.debugCommand, "enable-debug-command", "no", "who may run DEBUG: no, yes, or local (loopback clients only)")
	fs.StringVar(&o.protectedConfigs, "enable-protected-configs", "no", "who may CONFIG SET dir and dbfilename: no, yes or local")

	fs.StringVar(&o.tlsAddr, "tls-addr", "", "TLS address to listen on (Redis's tls-port); needs --tls-cert-file and --tls-key-file")
	fs.StringVar(&o.tlsCert, "tls-cert-file", "", "the server's TLS certificate (PEM)")
	fs.StringVar(&o.tlsKey, "tls-key-file", "", "the server's TLS private key (PEM)")
	fs.StringVar(&o.tlsCA, "tls-ca-cert-file", "", "CA certificates (PEM) client certificates, and a TLS-only cluster's members, are checked against")
	fs.StringVar(&o.tlsAuthClients, "tls-auth-clients", "", "yes: clients must present a certificate from --tls-ca-cert-file (the default with one); optional; no (the default without)")

	fs.StringVar(&o.nodeID, "node-id", "", "Raft server ID; setting it (or --data-dir) makes this server a cluster node")
	fs.StringVar(&o.raftAddr, "raft-addr", "", "Raft bind address host:port (default: --addr's host, port+10000)")
	fs.StringVar(&o.raftAdvertise, "raft-advertise", "", "Raft address given to peers (default --raft-addr)")
	fs.StringVar(&o.advertise, "advertise", "", "client address given to clients: MOVED, CLUSTER SLOTS, SENTINEL (default --addr)")
	fs.StringVar(&o.dataDir, "data-dir", "", "directory for the Raft log and snapshots; without it a cluster node keeps them in memory")
	fs.BoolVar(&o.bootstrap, "bootstrap", false, "form a new cluster from --peers (or alone); harmless once bootstrapped")
	fs.StringVar(&o.peers, "peers", "", "initial members: id=raftaddr=clientaddr,... (the same on every node)")
	fs.StringVar(&o.join, "join", "", "client address of a member to ask to add this node; the node starts serving once it is a voter")
	fs.DurationVar(&o.joinTimeout, "join-timeout", 2*time.Minute, "how long --join retries while no member answers or no leader is known")
	fs.BoolVar(&o.forward, "forward", false, "followers forward commands to the leader instead of answering MOVED")
	fs.StringVar(&o.readMode, "read-mode", "linearizable", "cluster reads: linearizable, lease or stale")
	fs.StringVar(&o.masterName, "sentinel-master-name", "mymaster", "the master name cluster nodes answer SENTINEL for")
	fs.DurationVar(&o.heartbeat, "raft-heartbeat-timeout", time.Second, "Raft heartbeat timeout")
	fs.DurationVar(&o.election, "raft-election-timeout", time.Second, "Raft election timeout")
	fs.Uint64Var(&o.snapThreshold, "snapshot-threshold", 8192, "log entries between snapshots")
	fs.DurationVar(&o.snapInterval, "snapshot-interval", 30*time.Second, "how often to check whether to snapshot")
	fs.BoolVar(&o.raftFsync, "raft-fsync", true, "fsync the Raft log before acknowledging; false: acknowledged writes survive a kill -9 of every node, not the loss of a majority of machines")
	fs.StringVar(&o.logStore, "raft-log-store", "wal", "Raft log format in --data-dir: wal or bolt")
	fs.Uint64Var(&o.trailingLogs, "trailing-logs", 10240, "log entries kept after a snapshot")
	fs.StringVar(&o.raftSecret, "raft-secret", "", "shared secret every Raft connection must prove (default: derived from --requirepass); the same on every node")
	fs.StringVar(&o.raftTLSCert, "raft-tls-cert", "", "PEM certificate for mutual TLS on the Raft port (with --raft-tls-key and --raft-tls-ca)")
	fs.StringVar(&o.raftTLSKey, "raft-tls-key", "", "PEM private key of --raft-tls-cert")
	fs.StringVar(&o.raftTLSCA, "raft-tls-ca", "", "PEM CA certificate: Raft peers must present a certificate it signed")

	fs.StringVar(&o.loadRDB, "load-rdb", "", "RDB file to start from (a redis-server dump.rdb or lockkv's SAVE): loaded before serving; on a cluster, by the leader through the log, into an empty keyspace only")

	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics (/metrics), /health, /ready and a read-only status page (/) on this HTTP address")
	fs.DurationVar(&o.readyMaxLag, "ready-max-lag", 5*time.Second, "replication lag past which /ready says a cluster member is not ready")
	fs.StringVar(&o.pprofAddr, "pprof-addr", "", "serve Go's net/http/pprof profiles on this address (off by default; never expose it beyond the host)")
	fs.StringVar(&o.slowTraceDir, "slow-trace-dir", "", "log requests slower than --slow-trace-threshold, and write a Go execution trace of the 2 s before one (for go tool trace) into this directory, at most one every 10s (off by default; the tracing costs about 10% more CPU per request)")
	fs.DurationVar(&o.slowTraceThreshold, "slow-trace-threshold", 10*time.Millisecond, "with --slow-trace-dir: a request is slow when its reply leaves this long after it arrived")
	fs.BoolVar(&o.version, "version", false, "print the version and exit (also -v, or lockkv version)")
	fs.BoolVar(&o.version, "v", false, "print the version and exit")
	fs.Usage = func() { usage(fs.Output(), fs) }
	return fs
}

// flagGroup is a section of --help.
type flagGroup struct {
	title, about, example string
	flags                 []string
}

// flagGroups are --help's sections; every flag is in exactly one
// (TestFlagGroups) and in README.md (TestREADMEFlags).
var flagGroups = []flagGroup{
	{"Server", "Where lockkv listens and what Redis behaviour its clients see.",
		"lockkv --addr 0.0.0.0:6379 --requirepass secret",
		[]string{"addr", "databases", "protected-mode", "enable-debug-command", "enable-protected-configs", "metrics-addr", "ready-max-lag", "pprof-addr", "slow-trace-dir", "slow-trace-threshold", "version", "v"}},
	{"Limits", "Bounds on clients; the other Redis limits (maxmemory, client-output-buffer-limit, timeout, ...) go in a config file or CONFIG SET.",
		"lockkv --maxclients 50000",
		[]string{"maxclients"}},
	{"Security", "Passwords and TLS for clients, authentication of the Raft port.",
		"lockkv --tls-addr :6380 --tls-cert-file server.crt --tls-key-file server.key --tls-ca-cert-file ca.crt",
		[]string{"requirepass", "tls-addr", "tls-cert-file", "tls-key-file", "tls-ca-cert-file", "tls-auth-clients", "raft-secret", "raft-tls-cert", "raft-tls-key", "raft-tls-ca"}},
	{"Cluster", "Raft replication: a durable single server (--data-dir alone) or a member of a 3- or 5-node cluster.",
		"lockkv --node-id n1 --addr 10.0.0.1:6379 --data-dir /var/lib/lockkv --bootstrap --peers n1=10.0.0.1:16379=10.0.0.1:6379,n2=...,n3=...",
		[]string{"node-id", "raft-addr", "raft-advertise", "advertise", "data-dir", "bootstrap", "peers", "join", "join-timeout", "forward", "read-mode", "sentinel-master-name", "raft-heartbeat-timeout", "raft-election-timeout", "snapshot-threshold", "snapshot-interval", "trailing-logs", "raft-log-store", "raft-fsync"}},
	{"Backup", "SAVE and BGSAVE write dir/dbfilename (config file or CONFIG SET); lockkv restore-rdb replays an RDB file into a running server.",
		"lockkv --load-rdb /backups/dump.rdb",
		[]string{"load-rdb"}},
	{"Logging", "One line per event on stderr (or --logfile); CONFIG SET loglevel changes the level at run time.",
		"lockkv --log-level debug --log-format json --logfile /var/log/lockkv.log",
		[]string{"log-level", "log-format", "logfile"}},
}

const usageHead = `Usage:
  lockkv [config-file] [flags]       run a server (flags override the file)
  lockkv ping [flags]                check that a server answers PING (exit 0) or not (exit 1)
  lockkv restore-rdb [flags] FILE    replay an RDB file into a running server (RESTORE ... ABSTTL REPLACE)
  lockkv locks [--addr host:port] [--match pattern]
                                     list the locks a server holds (LOCKKV.LOCKS)
  lockkv ready [--metrics-addr host:port]
                                     check that a server's /ready answers 200 (exit 0) or not (exit 1)
  lockkv version                     print the version (also --version, -v)

lockkv is a lock server that speaks Redis 7.0.15's protocol and replicates
with Raft. The config file is in redis.conf's syntax: Redis's settings
(requirepass, port, bind, maxmemory, timeout, loglevel, ...) and lockkv's
flags by name ("node-id n1", "data-dir /var/lib/lockkv").
`

// usage prints --help: the flags by group, each group with an example.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usageHead)
	for _, g := range flagGroups {
		fmt.Fprintf(w, "\n%s: %s\n  Example: %s\n\n", g.title, g.about, g.example)
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil {
				printFlag(w, f)
			}
		}
	}
}

// printFlag prints one flag as flag.PrintDefaults does.
func printFlag(w io.Writer, f *flag.Flag) {
	var b strings.Builder
	fmt.Fprintf(&b, "  --%s", f.Name)
	if len(f.Name) == 1 {
		b.Reset()
		fmt.Fprintf(&b, "  -%s", f.Name)
	}
	typ, text := flag.UnquoteUsage(f)
	if typ != "" {
		b.WriteString(" " + typ)
	}
	b.WriteString("\n    \t")
	b.WriteString(strings.ReplaceAll(text, "\n", "\n    \t"))
	if d := f.DefValue; d != "" && d != "false" && d != "0" {
		if typ == "string" {
			fmt.Fprintf(&b, " (default %q)", d)
		} else {
			fmt.Fprintf(&b, " (default %v)", d)
		}
	}
	fmt.Fprintln(w, b.String())
}
