// Command lockkv runs a lockkv server.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/buildinfo"
	"github.com/lockkv/lockkv/internal/redisconf"
	"github.com/lockkv/lockkv/metrics"
	"github.com/lockkv/lockkv/replication"
)

// startGrace is how long a signal received while the server starts waits
// for the start to finish before the process ends without serving.
const startGrace = time.Second

// defaultRaftAddr is the client address with its port plus 10000 (as Redis
// Cluster's bus port).
func defaultRaftAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p+10000 > 65535 {
		return "", fmt.Errorf("cannot derive a Raft port from %q; set --raft-addr", addr)
	}
	return net.JoinHostPort(host, strconv.Itoa(p+10000)), nil
}

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "version":
			if len(args) > 1 {
				fmt.Fprintf(os.Stderr, "lockkv: version takes no arguments\n")
				os.Exit(2)
			}
			fmt.Println(versionLine())
			return
		case "ping":
			os.Exit(pingMain(args[1:]))
		case "restore-rdb":
			os.Exit(restoreMain(args[1:]))
		case "locks":
			os.Exit(locksMain(args[1:], os.Stdout))
		case "ready":
			os.Exit(readyMain(args[1:], os.Stdout))
		}
	}
	var o options
	fs := newFlagSet(&o)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {} // printed below: in full for --help, briefly for a mistake
	// A config file path comes first, as redis-server takes it; the flags
	// after it override it.
	var confPath string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		confPath, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(os.Stdout, fs)
			os.Exit(0)
		}
		badUsage("") // flag printed the error
	}
	if fs.NArg() > 0 {
		if confPath == "" && fs.NArg() == 1 {
			badUsage(fmt.Sprintf("unexpected argument %q after the flags: a config file goes first (lockkv %s [flags])", fs.Arg(0), fs.Arg(0)))
		}
		badUsage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if o.version {
		fmt.Println(versionLine())
		return
	}
	var settings []lockkv.Setting
	if confPath != "" {
		abs, err := filepath.Abs(confPath)
		if err == nil {
			confPath = abs
			settings, err = loadConfigFile(confPath, fs, &o)
		}
		if err != nil {
			fmt.Fprint(os.Stderr, redisconf.Report(err, "lockkv "+buildinfo.Get().Version))
			os.Exit(1)
		}
	}

	if o.logFile != "" {
		// CONFIG GET logfile, and CONFIG REWRITE's line.
		settings = append(settings, lockkv.Setting{Name: "logfile", Args: []string{o.logFile}})
	}
	level, err := parseLogLevel(o.logLevel)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv: bad --log-level %q: %v\n", o.logLevel, err)
		os.Exit(2)
	}
	log, err := newLogger(o.logFormat, o.logFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lockkv: %v\n", err)
		os.Exit(2)
	}

	if o.tlsAddr != "" && (o.tlsCert == "" || o.tlsKey == "") {
		fmt.Fprintln(os.Stderr, "lockkv: --tls-addr needs --tls-cert-file and --tls-key-file")
		os.Exit(2)
	}
	if o.addr == "" && o.tlsAddr == "" {
		fmt.Fprintln(os.Stderr, "lockkv: --addr \"\" serves TLS only, and needs --tls-addr")
		os.Exit(2)
	}
	if o.tlsAddr == "" && (o.tlsCert != "" || o.tlsKey != "" || o.tlsCA != "" || o.tlsAuthClients != "") {
		fmt.Fprintln(os.Stderr, "lockkv: the --tls-* files need --tls-addr")
		os.Exit(2)
	}
	cfg := lockkv.Config{
		Addr:        o.addr,
		RequirePass: o.requirepass,
		Databases:   o.databases,
		MaxClients:  o.maxClients,
		Logger:      log,
		LogLevel:    level,
		ReadMode:    o.readMode,

		SentinelMasterName: o.masterName,

		ProtectedMode:          o.protectedMode,
		EnableDebugCommand:     o.debugCommand,
		EnableProtectedConfigs: o.protectedConfigs,

		TLSAddr:        o.tlsAddr,
		TLSCertFile:    o.tlsCert,
		TLSKeyFile:     o.tlsKey,
		TLSCACertFile:  o.tlsCA,
		TLSAuthClients: o.tlsAuthClients,
		TLSOnly:        o.addr == "",

		LoadRDB: o.loadRDB,

		Settings:         settings,
		ConfigFile:       confPath,
		ConfigDirectives: configDirectives(fs),
	}
	if o.metricsAddr != "" {
		cfg.Metrics = &metrics.Config{Addr: o.metricsAddr, ReadyMaxLag: o.readyMaxLag}
	}
	if o.nodeID != "" || o.dataDir != "" || o.bootstrap || o.join != "" || o.peers != "" {
		pl, err := replication.ParsePeers(o.peers)
		if err != nil {
			fmt.Fprintf(os.Stderr, "lockkv: --peers: %v\n", err)
			os.Exit(2)
		}
		id := o.nodeID
		if id == "" {
			id = "lockkv" // a durable single server needs no name
		}
		ra := o.raftAddr
		if ra == "" {
			clientAddr := o.addr
			if clientAddr == "" {
				clientAddr = o.tlsAddr
			}
			ra, err = defaultRaftAddr(clientAddr)
			if err != nil {
				fmt.Fprintf(os.Stderr, "lockkv: --raft-addr: %v\n", err)
				os.Exit(2)
			}
		}
		if !o.bootstrap && o.join == "" && len(pl) == 0 && o.nodeID == "" {
			// "lockkv --data-dir d": a durable single server, a cluster of
			// one. A node given a name but neither --bootstrap, --peers
			// nor --join waits to be added instead of electing itself: a
			// node started alone by mistake must not grant locks the real
			// cluster also grants.
			o.bootstrap = true
		}
		cfg.Cluster = &replication.Config{
			NodeID:            id,
			RaftAddr:          ra,
			RaftAdvertise:     o.raftAdvertise,
			ClientAdvertise:   o.advertise,
			DataDir:           o.dataDir,
			Bootstrap:         o.bootstrap,
			Peers:             pl,
			Join:              o.join,
			JoinTimeout:       o.joinTimeout,
			Forward:           o.forward,
			HeartbeatTimeout:  o.heartbeat,
			ElectionTimeout:   o.election,
			SnapshotThreshold: o.snapThreshold,
			SnapshotInterval:  o.snapInterval,
			TrailingLogs:      o.trailingLogs,
			LogStore:          o.logStore,
			NoSync:            !o.raftFsync,
			RaftSecret:        o.raftSecret,
			RaftTLSCert:       o.raftTLSCert,
			RaftTLSKey:        o.raftTLSKey,
			RaftTLSCA:         o.raftTLSCA,
		}
	}
	if o.pprofAddr != "" {
		ln, err := net.Listen("tcp", o.pprofAddr)
		if err != nil {
			log.Error("cannot listen for --pprof-addr", "err", err)
			os.Exit(1)
		}
		log.Info("serving pprof", "addr", ln.Addr().String())
		go func() { _ = http.Serve(ln, nil) }() // net/http/pprof registers on the default mux
	}
	if o.slowTraceDir != "" {
		if o.slowTraceThreshold <= 0 {
			badUsage("--slow-trace-threshold must be positive")
		}
		st, err := startSlowTracer(o.slowTraceDir, log)
		if err != nil {
			log.Error("cannot record traces for --slow-trace-dir", "err", err)
			os.Exit(1)
		}
		defer st.stop()
		cfg.SlowRequestThreshold, cfg.OnSlowRequest = o.slowTraceThreshold, st.observe
		log.Info("tracing slow requests", "dir", o.slowTraceDir, "threshold", o.slowTraceThreshold)
	}
	srv, err := lockkv.NewServer(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Catch signals before starting: starting may take long (opening and
	// locking the data dir, restoring a snapshot), and a signal must stop
	// it then too. A signal before the server has started ends the process
	// at once: nothing is served yet, and the stores survive an abrupt end
	// as they survive a crash (the OS drops the data dir's lock).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	started := make(chan error, 1)
	go func() { started <- srv.Start() }()
	var early os.Signal
	select {
	case err := <-started:
		if err != nil {
			log.Error("cannot start", "err", err)
			os.Exit(1)
		}
	case early = <-sig:
		// Start may be returning: it logs that it listens just before
		// it does, and a supervisor may signal on that line. Then this
		// is an ordinary shutdown; a start still waiting (on the data
		// dir's lock, a join) after a short grace is abandoned.
		select {
		case err := <-started:
			if err != nil {
				log.Error("cannot start", "err", err)
				os.Exit(1)
			}
		case <-time.After(startGrace):
			log.Warn("signal received while starting: exiting", "signal", early.String())
			os.Exit(1)
		}
	}
	// A node removed from its cluster stops, as etcd's removed members do;
	// it was the operator's decision, so the exit status is 0.
	removed := srv.Removed() // nil, never ready, on a standalone server
	if early != nil {
		log.Info("shutting down", "signal", early.String())
	} else {
		select {
		case s := <-sig:
			log.Info("shutting down", "signal", s.String())
			if srv.HandOver(handOverTimeout) {
				log.Info("handed leadership over before stopping")
			}
		case <-srv.Done():
			log.Info("shut down by SHUTDOWN")
		case <-removed:
			log.Info("shutting down: this node was removed from the cluster")
		}
	}
	go func() {
		s := <-sig
		log.Warn("second signal while shutting down: exiting now", "signal", s.String())
		os.Exit(1)
	}()
	if err := srv.Close(); err != nil {
		log.Error("close", "err", err)
		os.Exit(1)
	}
}

// handOverTimeout bounds how long a leader stopping on SIGTERM or SIGINT
// waits for another node to lead (Raft gives up on a transfer after an
// election timeout; this is Redis's shutdown-timeout default).
const handOverTimeout = 10 * time.Second

// badUsage reports a mistake in the command line (msg, unless flag
// already did) with the usage's head, and exits with status 2.
func badUsage(msg string) {
	if msg != "" {
		fmt.Fprintf(os.Stderr, "lockkv: %s\n", msg)
	}
	fmt.Fprint(os.Stderr, "\n"+usageHead+"\nRun 'lockkv --help' for the flags.\n")
	os.Exit(2)
}

// parseLogLevel reads --log-level: slog's names or Redis's.
func parseLogLevel(s string) (slog.Level, error) {
	if l, ok := config.ParseLogLevel(s); ok {
		return l, nil
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("want debug, info, warn or error (or Redis's debug, verbose, notice, warning)")
	}
	return l, nil
}
