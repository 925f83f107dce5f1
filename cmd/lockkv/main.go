// Command lockkv runs a lockkv server.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/commands"
	"github.com/lockkv/lockkv/replication"
)

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
	var (
		addr       = flag.String("addr", "127.0.0.1:6379", "TCP address to listen on; \"\" serves TLS only (--tls-addr)")
		pass       = flag.String("requirepass", "", "password clients must AUTH with")
		databases  = flag.Int("databases", 16, "number of databases")
		maxClients = flag.Int("maxclients", 10000, "maximum number of connected clients")
		logLevel   = flag.String("log-level", "info", "log level: debug, info, warn, error (or Redis's debug, verbose, notice, warning)")

		protectedMode = flag.String("protected-mode", "yes", "yes: without --requirepass, only clients of the loopback interface are served (Redis's protected-mode)")
		debugCommand  = flag.String("enable-debug-command", "no", "who may run DEBUG: no, yes, or local (loopback clients only)")
		protectedCfgs = flag.String("enable-protected-configs", "no", "who may CONFIG SET dir and dbfilename: no, yes or local")

		tlsAddr        = flag.String("tls-addr", "", "TLS address to listen on (Redis's tls-port); needs --tls-cert-file and --tls-key-file")
		tlsCert        = flag.String("tls-cert-file", "", "the server's TLS certificate (PEM)")
		tlsKey         = flag.String("tls-key-file", "", "the server's TLS private key (PEM)")
		tlsCA          = flag.String("tls-ca-cert-file", "", "CA certificates (PEM) client certificates, and a TLS-only cluster's members, are checked against")
		tlsAuthClients = flag.String("tls-auth-clients", "", "yes: clients must present a certificate from --tls-ca-cert-file (the default with one); optional; no (the default without)")

		nodeID        = flag.String("node-id", "", "Raft server ID; setting it (or --data-dir) makes this server a cluster node")
		raftAddr      = flag.String("raft-addr", "", "Raft bind address host:port (default: --addr's host, port+10000)")
		raftAdvertise = flag.String("raft-advertise", "", "Raft address given to peers (default --raft-addr)")
		advertise     = flag.String("advertise", "", "client address given to clients: MOVED, CLUSTER SLOTS, SENTINEL (default --addr)")
		dataDir       = flag.String("data-dir", "", "directory for the Raft log and snapshots; without it a cluster node keeps them in memory")
		bootstrap     = flag.Bool("bootstrap", false, "form a new cluster from --peers (or alone); harmless once bootstrapped")
		peers         = flag.String("peers", "", "initial members: id=raftaddr=clientaddr,... (the same on every node)")
		join          = flag.String("join", "", "client address of a member to ask to add this node; the node starts serving once it is a voter")
		joinTimeout   = flag.Duration("join-timeout", 2*time.Minute, "how long --join retries while no member answers or no leader is known")
		forward       = flag.Bool("forward", false, "followers forward commands to the leader instead of answering MOVED")
		readMode      = flag.String("read-mode", "linearizable", "cluster reads: linearizable, lease or stale")
		masterName    = flag.String("sentinel-master-name", "mymaster", "the master name cluster nodes answer SENTINEL for")
		heartbeat     = flag.Duration("raft-heartbeat-timeout", time.Second, "Raft heartbeat timeout")
		election      = flag.Duration("raft-election-timeout", time.Second, "Raft election timeout")
		snapThreshold = flag.Uint64("snapshot-threshold", 8192, "log entries between snapshots")
		snapInterval  = flag.Duration("snapshot-interval", 30*time.Second, "how often to check whether to snapshot")
		raftFsync     = flag.Bool("raft-fsync", true, "fsync the Raft log before acknowledging; false: acknowledged writes survive a kill -9 of every node, not the loss of a majority of machines")
		logStore      = flag.String("raft-log-store", "wal", "Raft log format in --data-dir: wal or bolt")
		trailingLogs  = flag.Uint64("trailing-logs", 10240, "log entries kept after a snapshot")
		raftSecret    = flag.String("raft-secret", "", "shared secret every Raft connection must prove (default: derived from --requirepass); the same on every node")
		raftTLSCert   = flag.String("raft-tls-cert", "", "PEM certificate for mutual TLS on the Raft port (with --raft-tls-key and --raft-tls-ca)")
		raftTLSKey    = flag.String("raft-tls-key", "", "PEM private key of --raft-tls-cert")
		raftTLSCA     = flag.String("raft-tls-ca", "", "PEM CA certificate: Raft peers must present a certificate it signed")

		pprofAddr = flag.String("pprof-addr", "", "serve Go's net/http/pprof profiles on this address (off by default; never expose it beyond the host)")
	)
	flag.Parse()

	level, ok := commands.ParseLogLevel(*logLevel)
	if !ok {
		if err := level.UnmarshalText([]byte(strings.ToUpper(*logLevel))); err != nil {
			fmt.Fprintf(os.Stderr, "lockkv: bad --log-level %q: %v\n", *logLevel, err)
			os.Exit(2)
		}
	}
	// The server filters by level (CONFIG SET loglevel moves it); the
	// handler passes everything.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))

	if *tlsAddr != "" && (*tlsCert == "" || *tlsKey == "") {
		fmt.Fprintln(os.Stderr, "lockkv: --tls-addr needs --tls-cert-file and --tls-key-file")
		os.Exit(2)
	}
	if *addr == "" && *tlsAddr == "" {
		fmt.Fprintln(os.Stderr, "lockkv: --addr \"\" serves TLS only, and needs --tls-addr")
		os.Exit(2)
	}
	if *tlsAddr == "" && (*tlsCert != "" || *tlsKey != "" || *tlsCA != "" || *tlsAuthClients != "") {
		fmt.Fprintln(os.Stderr, "lockkv: the --tls-* files need --tls-addr")
		os.Exit(2)
	}
	cfg := lockkv.Config{
		Addr:        *addr,
		RequirePass: *pass,
		Databases:   *databases,
		MaxClients:  *maxClients,
		Logger:      log,
		LogLevel:    level,
		ReadMode:    *readMode,

		SentinelMasterName: *masterName,

		ProtectedMode:          *protectedMode,
		EnableDebugCommand:     *debugCommand,
		EnableProtectedConfigs: *protectedCfgs,

		TLSAddr:        *tlsAddr,
		TLSCertFile:    *tlsCert,
		TLSKeyFile:     *tlsKey,
		TLSCACertFile:  *tlsCA,
		TLSAuthClients: *tlsAuthClients,
		TLSOnly:        *addr == "",
	}
	switch *readMode {
	case "linearizable", "lease", "stale":
	default:
		fmt.Fprintf(os.Stderr, "lockkv: bad --read-mode %q: want linearizable, lease or stale\n", *readMode)
		os.Exit(2)
	}
	if *nodeID != "" || *dataDir != "" || *bootstrap || *join != "" || *peers != "" {
		pl, err := replication.ParsePeers(*peers)
		if err != nil {
			fmt.Fprintf(os.Stderr, "lockkv: --peers: %v\n", err)
			os.Exit(2)
		}
		id := *nodeID
		if id == "" {
			id = "lockkv" // a durable single server needs no name
		}
		ra := *raftAddr
		if ra == "" {
			clientAddr := *addr
			if clientAddr == "" {
				clientAddr = *tlsAddr
			}
			ra, err = defaultRaftAddr(clientAddr)
			if err != nil {
				fmt.Fprintf(os.Stderr, "lockkv: --raft-addr: %v\n", err)
				os.Exit(2)
			}
		}
		if !*bootstrap && *join == "" && len(pl) == 0 && *nodeID == "" {
			// "lockkv --data-dir d": a durable single server, a cluster of
			// one. A node given a name but neither --bootstrap, --peers
			// nor --join waits to be added instead of electing itself: a
			// node started alone by mistake must not grant locks the real
			// cluster also grants.
			*bootstrap = true
		}
		cfg.Cluster = &replication.Config{
			NodeID:            id,
			RaftAddr:          ra,
			RaftAdvertise:     *raftAdvertise,
			ClientAdvertise:   *advertise,
			DataDir:           *dataDir,
			Bootstrap:         *bootstrap,
			Peers:             pl,
			Join:              *join,
			JoinTimeout:       *joinTimeout,
			Forward:           *forward,
			HeartbeatTimeout:  *heartbeat,
			ElectionTimeout:   *election,
			SnapshotThreshold: *snapThreshold,
			SnapshotInterval:  *snapInterval,
			TrailingLogs:      *trailingLogs,
			LogStore:          *logStore,
			NoSync:            !*raftFsync,
			RaftSecret:        *raftSecret,
			RaftTLSCert:       *raftTLSCert,
			RaftTLSKey:        *raftTLSKey,
			RaftTLSCA:         *raftTLSCA,
		}
	}
	if *pprofAddr != "" {
		ln, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			log.Error("cannot listen for --pprof-addr", "err", err)
			os.Exit(1)
		}
		log.Info("serving pprof", "addr", ln.Addr().String())
		go func() { _ = http.Serve(ln, nil) }() // net/http/pprof registers on the default mux
	}
	srv := lockkv.NewServer(cfg)
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
		// Start may have returned meanwhile: then this is an ordinary
		// shutdown.
		select {
		case err := <-started:
			if err != nil {
				log.Error("cannot start", "err", err)
				os.Exit(1)
			}
		default:
			log.Warn("signal received while starting: exiting", "signal", early.String())
			os.Exit(1)
		}
	}
	// A node removed from its cluster stops, as etcd's removed members do;
	// it was the operator's decision, so the exit status is 0.
	var removed <-chan struct{}
	if n := srv.Node(); n != nil {
		removed = n.Removed()
	}
	if early != nil {
		log.Info("shutting down", "signal", early.String())
	} else {
		select {
		case s := <-sig:
			log.Info("shutting down", "signal", s.String())
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
