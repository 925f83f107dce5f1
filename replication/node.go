package replication

import (
	crand "crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/fs"
	"github.com/hashicorp/raft-wal/metadb"
	"github.com/hashicorp/raft-wal/segment"
	"go.etcd.io/bbolt"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/host"
	"github.com/lockkv/lockkv/store"
)

// Config configures one node of a cluster.
type Config struct {
	// NodeID is the node's Raft server ID, unique in the cluster.
	NodeID string
	// RaftAddr is the address the Raft transport listens on.
	RaftAddr string
	// RaftAdvertise is the Raft address given to peers ("" = RaftAddr).
	RaftAdvertise string
	// ClientAdvertise is the client address given to clients (MOVED,
	// CLUSTER SLOTS, SENTINEL); "" = the server's listen address.
	ClientAdvertise string
	// DataDir holds the Raft log, the stable store and the snapshots. ""
	// keeps everything in memory (tests): a restarted node then starts
	// empty.
	DataDir string
	// Bootstrap forms a new cluster from Peers (this node alone when
	// Peers is empty). It does nothing when the node already has state.
	Bootstrap bool
	// Peers are the initial members, this node included.
	Peers []Peer
	// Join is the client address of a member to ask to add this node.
	// Start then returns once the node is a voter, or with an error when
	// the cluster refuses it (a wrong password, another cluster's ID, a
	// node the leader refuses) or JoinTimeout passes. A node that is
	// already a member does not ask again.
	Join string
	// JoinTimeout bounds how long Join keeps retrying what may pass (no
	// member answers, no leader yet, a change in progress); default 2m.
	JoinTimeout time.Duration
	// CatchUpTimeout is how long a node being added as a voter may make no
	// progress catching up before the add fails and it is removed again;
	// default 1m.
	CatchUpTimeout time.Duration
	// Forward makes a follower forward the commands it cannot run to the
	// leader and relay the replies, instead of answering MOVED, so that a
	// plain client may connect to any node.
	Forward bool
	// Password is what this node AUTHs with on other members' client
	// ports (join, progress reports): the servers' requirepass. Without a
	// RaftSecret it also authenticates Raft connections.
	Password string
	// ClientTLS, when set, is the TLS configuration this node dials the
	// other members' client ports with (their client ports serve TLS
	// only); nil dials plain TCP.
	ClientTLS *tls.Config

	// RaftSecret is the shared secret every Raft connection proves
	// knowledge of (a mutual challenge-response before any Raft byte);
	// "" means Password's. Every member needs the same one.
	RaftSecret string
	// RaftTLSCert, RaftTLSKey and RaftTLSCA (PEM files) turn on mutual
	// TLS on the Raft port: a peer must present a certificate the CA
	// signed, and the peers this node dials must too. The CA should be
	// the cluster's own: every certificate it signed is a member.
	RaftTLSCert string
	RaftTLSKey  string
	RaftTLSCA   string

	HeartbeatTimeout time.Duration // default 1s
	ElectionTimeout  time.Duration // default 1s
	// LeaderLease is how long a leader that hears from no quorum keeps
	// leading before it steps down (Raft's LeaderLeaseTimeout); lease
	// reads rely on it ending before another node can be elected. Default
	// min(HeartbeatTimeout/2, 500ms); at most HeartbeatTimeout.
	LeaderLease       time.Duration
	SnapshotThreshold uint64        // entries between snapshots; default 8192
	SnapshotInterval  time.Duration // how often to check; default 30s
	TrailingLogs      uint64        // entries kept after a snapshot; default 10240

	// LogStore is the Raft log's format in DataDir: "wal" (default,
	// hashicorp/raft-wal: segment files, one append and one fsync per
	// batch) or "bolt" (hashicorp/raft-boltdb: a B+tree, two fsyncs and
	// page rewrites per batch; about 1.5x slower here, see bench/BENCHMARKS.md).
	LogStore string
	// NoSync skips fsync of the Raft log. An acknowledged write is then
	// in the memory of a majority and in their operating systems' page
	// cache: it survives a kill -9 of every node, not the simultaneous
	// loss of a majority of machines (power, kernel). Much faster on
	// slow disks; Redis's own default persistence is weaker still.
	NoSync bool

	// Stalled, when set, reports how long the command goroutine has been
	// held by work only this node does (0 while it makes progress): a
	// leader held longer than ElectionTimeout hands leadership over
	// (watchdog.go).
	Stalled func() time.Duration

	// Transport, when set, replaces the TCP transport (tests).
	Transport raft.Transport
	// Clock is the time source the leader stamps entries with.
	Clock  store.Clock
	Logger *slog.Logger
}

// Peer is an initial member.
type Peer struct {
	ID         string
	RaftAddr   string
	ClientAddr string
}

// ParsePeers parses "id=raftaddr=clientaddr,..." (clientaddr optional).
func ParsePeers(s string) ([]Peer, error) {
	var out []Peer
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, "=")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("bad peer %q: want id=raftaddr=clientaddr", item)
		}
		p := Peer{ID: parts[0], RaftAddr: parts[1]}
		if len(parts) == 3 {
			p.ClientAddr = parts[2]
		}
		out = append(out, p)
	}
	return out, nil
}

// Runner runs fn on the command goroutine and waits for it; it returns
// false when the server is shutting down and fn did not run.
type Runner func(fn func(e *engine.Engine)) bool

// Node is one member of the cluster: the Raft instance, the state machine
// that applies entries to the engine, and the proposer that batches the
// engine's ops into entries.
type Node struct {
	cfg    Config
	log    *slog.Logger
	run    Runner
	raft   *raft.Raft
	trans  raft.Transport
	logs   raft.LogStore
	closer []io.Closer
	origin uint64

	// sec and refusals are the Raft port's authentication and its log.
	sec      *raftSecurity
	refusals *refusalLog
	// rlog is Raft's logger (raftlog.go); noQuorum is set while this
	// node, having stepped down for want of a quorum, has seen no leader
	// since (quorum lost and regained are logged once each).
	rlog     *raftLogger
	noQuorum atomic.Bool
	// The stores Open opened and Start hands to Raft.
	dir    *dataDir
	opened bool
	stable raft.StableStore
	snaps  raft.SnapshotStore
	// progress is what this node hears from its followers while it
	// leads (progress.go).
	progress *progressTransport
	// changing names the membership change running (command goroutine).
	changing string
	// removed is set, and removedCh closed, once this node was removed
	// from the cluster (membership.go).
	removed   atomic.Bool
	removedCh chan struct{}
	// removalConfirmed is set when the leader answered this node's
	// progress report that it removed it; removedIDs are the nodes this
	// leader removed (command goroutine).
	removalConfirmed atomic.Bool
	removedIDs       map[string]struct{}

	// clusterID is the cluster's identity ([]byte, idSize bytes, or
	// empty while unknown); hasState is set once the node has a log or a
	// snapshot. Both go into every handshake's hello.
	clusterID atomic.Value
	hasState  atomic.Bool

	// metrics are the node's instruments (metrics.go).
	metrics *host.RaftMetrics
	// acks are the followers' reports to this leader (command goroutine).
	acks map[string]ack
	// snapIndex is the newest snapshot's index as read at snapAt
	// (command goroutine).
	snapIndex uint64
	snapAt    time.Time

	mu      sync.Mutex
	queue   []engine.Op
	queueN  []Member
	queueID []byte // a cluster ID to propose
	kick    chan struct{}
	futures chan proposal
	// unstored counts the proposer's entries that Raft has not yet
	// written to the log; stored wakes the proposer when it drops.
	unstored atomic.Int64
	stored   chan struct{}
	lastTime atomic.Int64 // newest entry time stamped or applied
	// fsmApplied is the index of the last entry the engine applied (or
	// of the snapshot it restored): see appliedIndex.
	fsmApplied atomic.Uint64

	readGen  atomic.Uint64
	readKick chan struct{}

	leaderID   atomic.Value // raft.ServerID of the leader as last seen
	stop       chan struct{}
	wg         sync.WaitGroup
	settled    chan struct{} // closed when settle returns
	shutdownMu sync.Once
}

type proposal struct {
	f    raft.ApplyFuture
	seqs []uint64
}

// New prepares a node; Start starts Raft once the command goroutine runs.
func New(cfg Config, run Runner) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RaftAdvertise == "" {
		cfg.RaftAdvertise = cfg.RaftAddr
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = time.Second
	}
	if cfg.ElectionTimeout <= 0 {
		cfg.ElectionTimeout = time.Second
	}
	if cfg.SnapshotThreshold == 0 {
		cfg.SnapshotThreshold = 8192
	}
	if cfg.SnapshotInterval <= 0 {
		cfg.SnapshotInterval = 30 * time.Second
	}
	if cfg.TrailingLogs == 0 {
		cfg.TrailingLogs = 10240
	}
	if cfg.JoinTimeout <= 0 {
		cfg.JoinTimeout = 2 * time.Minute
	}
	if cfg.CatchUpTimeout <= 0 {
		cfg.CatchUpTimeout = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	sec, err := newRaftSecurity(&cfg)
	if err != nil {
		return nil, err
	}
	var seed [8]byte
	crand.Read(seed[:])
	n := &Node{
		metrics:    newMetrics(),
		cfg:        cfg,
		log:        cfg.Logger,
		run:        run,
		origin:     binary.LittleEndian.Uint64(seed[:]) | 1,
		removedIDs: map[string]struct{}{},
		kick:       make(chan struct{}, 1),
		stored:     make(chan struct{}, 1),
		futures:    make(chan proposal, 8192),
		readKick:   make(chan struct{}, 1),
		stop:       make(chan struct{}),
		removedCh:  make(chan struct{}),
		sec:        sec,
		refusals:   newRefusalLog(cfg.Logger),
	}
	n.rlog = newRaftLogger(cfg.Logger, n.raftEvent)
	n.leaderID.Store(raft.ServerID(""))
	n.clusterID.Store([]byte(nil))
	return n, nil
}

// Origin is the number that marks this process's ops.
func (n *Node) Origin() uint64 { return n.origin }

// Open checks and locks the data directory (an exclusive lock on its
// LOCK file, held until Shutdown) and opens the Raft log, the stable store
// and the snapshots. The server calls it before it listens for clients, so
// a data directory that is in use or unusable is an error at once; Start
// calls it if it was not called.
func (n *Node) Open() error {
	if n.opened {
		return nil
	}
	cfg := &n.cfg
	var (
		logs   raft.LogStore
		stable raft.StableStore
		snaps  raft.SnapshotStore
	)
	if cfg.DataDir == "" {
		mem := raft.NewInmemStore()
		logs, stable, snaps = mem, mem, raft.NewInmemSnapshotStore()
	} else {
		dir, err := openDataDir(cfg.DataDir)
		if err != nil {
			return err
		}
		n.dir = dir
		if logs, stable, err = n.openLog(); err != nil {
			n.closeStores()
			return err
		}
		// Recent entries stay in memory: the leader reads them back to
		// send them to followers, followers to apply them; the stores
		// would answer each read with a disk read (raft-wal: a pread).
		if logs, err = raft.NewLogCache(4096, logs); err != nil {
			n.closeStores()
			return err
		}
		fss, err := raft.NewFileSnapshotStoreWithLogger(cfg.DataDir, 2, n.raftLogger())
		if err != nil {
			n.closeStores()
			return fmt.Errorf("replication: opening the snapshot store in %s: %w", cfg.DataDir, err)
		}
		snaps = fss
	}
	if err := n.loadClusterID(stable); err != nil {
		n.closeStores()
		return err
	}
	if err := n.checkNotRemoved(stable); err != nil {
		n.closeStores()
		return err
	}
	has, err := raft.HasExistingState(logs, stable, snaps)
	if err != nil {
		n.closeStores()
		return err
	}
	n.hasState.Store(has)
	n.logs, n.stable, n.snaps = logs, stable, snaps
	n.opened = true
	return nil
}

func (n *Node) raftLogger() hclog.Logger { return n.rlog }

// Start starts the transport, bootstraps if asked, and starts Raft and the
// node's goroutines (opening the stores first if Open was not called).
// With Join it returns once the node was added, or with the reason it was
// not. clientAddr is the server's listen address (the default advertised
// one). After an error the caller still calls Shutdown.
func (n *Node) Start(clientAddr string) error {
	if err := n.Open(); err != nil {
		return err
	}
	cfg := &n.cfg
	if cfg.ClientAdvertise == "" {
		cfg.ClientAdvertise = clientAddr
	}
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.NodeID)
	rc.HeartbeatTimeout = cfg.HeartbeatTimeout
	rc.ElectionTimeout = cfg.ElectionTimeout
	rc.LeaderLeaseTimeout = n.leaderLease()
	rc.CommitTimeout = 5 * time.Millisecond
	rc.MaxAppendEntries = 512
	rc.BatchApplyCh = true
	rc.SnapshotThreshold = cfg.SnapshotThreshold
	rc.SnapshotInterval = cfg.SnapshotInterval
	rc.TrailingLogs = cfg.TrailingLogs
	rc.Logger = n.raftLogger()

	logs, stable, snaps := n.logs, n.stable, n.snaps
	trans := cfg.Transport
	if trans == nil {
		adv, err := net.ResolveTCPAddr("tcp", cfg.RaftAdvertise)
		if err != nil {
			return fmt.Errorf("replication: --raft-advertise: %w", err)
		}
		auth := &handshakeAuth{key: n.sec.key, local: n.hello}
		t, err := newRaftTransport(cfg.RaftAddr, adv, n.sec, auth, n.refusals, rc.Logger.Named("net"))
		if err != nil {
			return fmt.Errorf("replication: Raft transport: %w", err)
		}
		trans = t
		if n.sec.open() {
			n.log.Warn("the Raft port is unauthenticated: anyone who can reach it can write to the cluster; set --requirepass, --raft-secret or --raft-tls-*", "raft", cfg.RaftAddr)
		}
	}
	if c, ok := trans.(io.Closer); ok {
		n.closer = append(n.closer, c)
	}
	n.progress, trans = trackProgress(trans, n.log, n.activeWindow)
	n.trans = trans

	if cfg.Bootstrap && !n.hasState.Load() {
		conf := raft.Configuration{}
		peers := cfg.Peers
		if len(peers) == 0 {
			peers = []Peer{{ID: cfg.NodeID, RaftAddr: cfg.RaftAdvertise, ClientAddr: cfg.ClientAdvertise}}
		}
		for _, p := range peers {
			conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.RaftAddr)})
		}
		if err := raft.BootstrapCluster(rc, logs, stable, snaps, trans, conf); err != nil {
			return fmt.Errorf("replication: bootstrap: %w", err)
		}
		n.hasState.Store(true)
	}

	logs = storeSignal{LogStore: logs, n: n}
	n.logs = logs
	r, err := raft.NewRaft(rc, (*fsm)(n), logs, stable, snaps, trans)
	if err != nil {
		return fmt.Errorf("replication: starting Raft: %w", err)
	}
	n.raft = r
	n.wg.Add(4)
	n.settled = make(chan struct{})
	go n.acker()
	go n.proposer()
	go n.settle()
	go n.confirmer()
	go n.watchLeadership()
	if cfg.Stalled != nil {
		n.wg.Add(1)
		go n.watchdog()
	}
	if cfg.Transport == nil {
		// The probe dials the leader's TCP Raft address (leaderprobe.go).
		n.wg.Add(1)
		go n.leaderProbe()
	}
	n.log.Info("raft started", "node", cfg.NodeID, "raft", cfg.RaftAdvertise, "advertise", cfg.ClientAdvertise, "cluster_id", n.ClusterID())
	member := slices.ContainsFunc(n.config(), func(s raft.Server) bool { return string(s.ID) == cfg.NodeID })
	switch {
	case cfg.Join != "" && member:
		// A restarted member does not ask again (its cluster may need it
		// to elect a leader), but does not serve another cluster's
		// --join either.
		if err := n.checkJoinIdentity(); err != nil {
			return err
		}
	case cfg.Join != "":
		if err := n.join(); err != nil {
			return err
		}
	case !n.hasState.Load():
		// hashicorp/raft does not elect a node without a configuration
		// ("no known peers, aborting election"): it waits for a leader.
		n.log.Warn("this node has no Raft state and was given neither --bootstrap nor --join: it waits to be added to a cluster (RAFT.NODE ADD on the leader) and does not elect itself",
			"node", cfg.NodeID, "raft", cfg.RaftAdvertise, "add_with", fmt.Sprintf("RAFT.NODE ADD %s %s %s", cfg.NodeID, cfg.RaftAdvertise, cfg.ClientAdvertise))
	}
	return nil
}

// Shutdown stops Raft and the node's goroutines. The command goroutine must
// still run (Raft may be applying through it).
func (n *Node) Shutdown() error {
	var err error
	n.shutdownMu.Do(func() {
		close(n.stop)
		if n.raft != nil {
			err = n.raft.Shutdown().Error()
		}
		n.wg.Wait()
		if n.settled != nil {
			// hashicorp/raft never answers an Apply future still queued
			// when it shuts down, so settle may wait on one forever: it is
			// given a moment, then left behind.
			select {
			case <-n.settled:
			case <-time.After(2 * time.Second):
				n.log.Warn("replication: a proposal's outcome never came (Raft stopped with it queued)")
			}
		}
		n.closeStores()
	})
	return err
}

func (n *Node) closeStores() {
	for _, c := range n.closer {
		c.Close()
	}
	n.closer = nil
	if n.dir != nil {
		// Last: the lock outlives every store in the directory.
		n.dir.Close()
		n.dir = nil
	}
}

// Raft returns the Raft instance (tests, admin).
func (n *Node) Raft() *raft.Raft { return n.raft }

// Propose queues an op (engine.Replicator); the proposer sends the ops
// queued together as one log entry.
func (n *Node) Propose(op engine.Op) {
	n.mu.Lock()
	n.queue = append(n.queue, op)
	n.mu.Unlock()
}

// Flush wakes the proposer for the ops queued so far
// (engine.Replicator).
func (n *Node) Flush() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// proposeMembers queues registry records.
func (n *Node) proposeMembers(ms ...Member) {
	n.mu.Lock()
	n.queueN = append(n.queueN, ms...)
	n.mu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// stamp returns the time for a new entry: the leader's clock, but never
// earlier than an entry already stamped or applied.
func (n *Node) stamp() int64 {
	now := n.cfg.Clock.Now().UnixMilli()
	for {
		last := n.lastTime.Load()
		if now < last {
			now = last
		}
		if n.lastTime.CompareAndSwap(last, now) {
			return now
		}
	}
}

// proposer turns queued ops into log entries: group commit. It keeps at
// most one entry waiting for Raft's leader loop: while the loop writes the
// previous batch to the log (an fsync), ops pile up here and go out as one
// entry the moment the write returns, which is when the loop would have
// taken them anyway. So an entry carries every op of an fsync's time
// instead of one entry per command-loop iteration, and Raft's per-entry
// work (encoding, the log, the apply hand-off, on every node) is paid once
// for all of them.
func (n *Node) proposer() {
	defer n.wg.Done()
	var buf []byte
	// A proposal that never reaches the log (leadership lost while it
	// waited) must not hold the queue: after unstoredWait the proposer
	// stops waiting for it.
	const unstoredWait = 20 * time.Millisecond
	stall := time.NewTimer(time.Hour)
	stall.Stop()
	for {
		select {
		case <-n.kick:
		case <-n.stored:
		case <-stall.C:
			n.unstored.Store(0)
		case <-n.stop:
			return
		}
		if n.unstored.Load() > 0 {
			continue
		}
		n.mu.Lock()
		ops, members, id := n.queue, n.queueN, n.queueID
		n.queue, n.queueN, n.queueID = nil, nil, nil
		n.mu.Unlock()
		if len(ops) == 0 && len(members) == 0 && id == nil {
			continue
		}
		var seed [8]byte
		crand.Read(seed[:])
		en := Entry{Time: n.stamp(), Seed: binary.LittleEndian.Uint64(seed[:]), Ops: ops, Nodes: members, ClusterID: id}
		buf = appendEntry(buf[:0], &en)
		data := append([]byte(nil), buf...)
		var seqs []uint64
		for _, op := range ops {
			if op.Seq != 0 {
				seqs = append(seqs, op.Seq)
			}
		}
		n.unstored.Add(1)
		stall.Reset(unstoredWait)
		f := n.raft.Apply(data, 0)
		select {
		case n.futures <- proposal{f: f, seqs: seqs}:
		case <-n.stop:
			return
		}
	}
}

// storeSignal is the node's log store as Raft sees it: every write of
// command entries (on the leader: a batch the leader loop took from the
// apply queue) lets the proposer send what queued meanwhile.
type storeSignal struct {
	raft.LogStore
	n *Node
}

func (s storeSignal) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// IsMonotonic passes the store's answer on (raft.MonotonicLogStore): the
// WAL takes no gap after a snapshot restore, and Raft must know.
func (s storeSignal) IsMonotonic() bool {
	m, ok := s.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

func (s storeSignal) StoreLogs(logs []*raft.Log) error {
	start := time.Now()
	err := s.LogStore.StoreLogs(logs)
	s.n.metrics.LogStore.Observe(since(start))
	if !s.n.hasState.Load() {
		s.n.hasState.Store(true) // a new node's first entries
	}
	cmds := int64(0)
	for _, l := range logs {
		if l.Type == raft.LogCommand {
			cmds++
		}
	}
	if cmds > 0 && s.n.unstored.Load() > 0 {
		if s.n.unstored.Add(-cmds) < 0 {
			s.n.unstored.Store(0)
		}
		select {
		case s.n.stored <- struct{}{}:
		default:
		}
	}
	return err
}

// settle waits for each proposal's outcome; failed ones are reported to the
// engine (applied ones were answered by the apply itself).
func (n *Node) settle() {
	defer close(n.settled)
	for {
		select {
		case p := <-n.futures:
			if len(p.seqs) == 0 {
				continue
			}
			err := p.f.Error()
			if err == nil {
				if _, refused := p.f.Response().(error); refused {
					// Committed, but no node could decode it (fsm.go):
					// nobody applied it, nobody answered its clients.
					n.run(func(e *engine.Engine) { e.ProposalsRefused(p.seqs) })
				}
				continue
			}
			select {
			case <-n.stop:
				return
			default:
			}
			n.log.Debug("proposal failed", "err", err)
			n.run(func(e *engine.Engine) { e.ProposalsFailed(p.seqs) })
		case <-n.stop:
			return
		}
	}
}

// ConfirmLeadership asks for a leadership check covering round gen
// (engine.Replicator).
func (n *Node) ConfirmLeadership(gen uint64) {
	for {
		cur := n.readGen.Load()
		if gen <= cur || n.readGen.CompareAndSwap(cur, gen) {
			break
		}
	}
	select {
	case n.readKick <- struct{}{}:
	default:
	}
}

// errNodeStopped is await's answer when the node stopped first.
var errNodeStopped = errors.New("replication: node stopped")

// await waits for f's outcome, or for the node to stop (errNodeStopped).
// hashicorp/raft never answers a future still queued in one of its
// channels when it shuts down (a barrier, a leadership check, a
// leadership transfer), so a goroutine of the node that waited on f.Error
// alone could hold Shutdown's wait forever; the goroutine waiting on f is
// then left behind, as settle's proposal is.
func (n *Node) await(f raft.Future) error {
	out := make(chan error, 1)
	go func() { out <- f.Error() }()
	select {
	case err := <-out:
		return err
	case <-n.stop:
		return errNodeStopped
	}
}

// confirmer runs leadership checks: one VerifyLeader round (a heartbeat to
// a quorum) covers every read that arrived before it started.
func (n *Node) confirmer() {
	defer n.wg.Done()
	for {
		select {
		case <-n.readKick:
		case <-n.stop:
			return
		}
		gen := n.readGen.Load()
		err := n.await(n.raft.VerifyLeader())
		if errors.Is(err, errNodeStopped) {
			return
		}
		n.run(func(e *engine.Engine) {
			if err != nil {
				e.SetLeader(false)
				return
			}
			e.ReadsConfirmed(gen)
		})
	}
}

// watchLeadership follows Raft's leadership: a new leader first applies
// everything committed before (a barrier), then registers the members'
// client addresses it knows and starts serving; a node that stops leading
// stops at once.
func (n *Node) watchLeadership() {
	defer n.wg.Done()
	obs := make(chan raft.Observation, 16)
	observer := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(observer)
	defer n.raft.DeregisterObserver(observer)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	leading := false
	var leadTerm uint64   // the term served since its barrier
	var suspect time.Time // first seen out of the configuration
	for {
		select {
		case <-obs:
		case <-tick.C:
		case <-n.stop:
			return
		}
		if n.checkRemoved(&suspect) {
			return
		}
		_, id := n.raft.LeaderWithID()
		old := n.leaderID.Swap(id).(raft.ServerID)
		if old != id {
			n.run(func(e *engine.Engine) { n.leaderChanged(e, string(old), string(id)) })
		}
		isLeader := n.raft.State() == raft.Leader
		term := n.raft.CurrentTerm()
		// Leading in another term than the one served since the barrier:
		// leadership was lost and won back between two looks (this
		// goroutine waits in n.run while the command goroutine is busy).
		// The engine steps down all the same: another leader may have
		// committed entries it has not applied yet, and what it holds as
		// leader (blocked clients, WATCHed EXECs, expiry in flight)
		// belongs to the old term. The new term then starts as any other,
		// with a barrier.
		if leading && (!isLeader || term != leadTerm) {
			leading = false
			n.log.Info("leadership lost", "node", n.cfg.NodeID, "term", term)
			n.run(func(e *engine.Engine) {
				clear(n.acks) // a later term's leader hears them anew
				e.SetLeader(false)
			})
		}
		if !isLeader || leading {
			continue
		}
		if err := n.await(n.raft.Barrier(0)); err != nil {
			if errors.Is(err, errNodeStopped) {
				return
			}
			continue // lost it again; the next tick looks anew
		}
		leading, leadTerm = true, term
		n.run(func(e *engine.Engine) {
			n.proposeClusterIDIfNone()
			n.registerMembers(e)
			e.SetLeader(true)
		})
		n.log.Info("leadership gained", "node", n.cfg.NodeID, "term", n.raft.CurrentTerm())
	}
}

// registerMembers proposes the client addresses this leader knows and
// e's member registry lacks, and drops those of nodes no longer members
// (a leader that removed itself could not) (command goroutine).
func (n *Node) registerMembers(e *engine.Engine) {
	members := e.Members()
	var ms []Member
	conf := n.config()
	member := func(id string) bool {
		return slices.ContainsFunc(conf, func(s raft.Server) bool { return string(s.ID) == id })
	}
	for _, id := range slices.Sorted(maps.Keys(members)) {
		if !member(id) {
			ms = append(ms, Member{ID: id})
		}
	}
	if members[n.cfg.NodeID] != n.cfg.ClientAdvertise {
		ms = append(ms, Member{ID: n.cfg.NodeID, ClientAddr: n.cfg.ClientAdvertise})
	}
	for _, p := range n.cfg.Peers {
		if p.ClientAddr != "" && p.ID != n.cfg.NodeID && members[p.ID] == "" && member(p.ID) {
			ms = append(ms, Member{ID: p.ID, ClientAddr: p.ClientAddr})
		}
	}
	if len(ms) > 0 {
		n.proposeMembers(ms...)
	}
}

// leaderChanged runs on the command goroutine when the known leader
// changes: "leader lost" (WARN: no leader is known; a leader that stepped
// down says "leadership lost" instead) and "leader changed".
func (n *Node) leaderChanged(e *engine.Engine, old, cur string) {
	n.metrics.LeaderChanges.Add(1)
	switch {
	case cur == "" && old != n.cfg.NodeID:
		n.log.Warn("leader lost", "node", n.cfg.NodeID, "leader", old)
	case cur != "":
		n.log.Info("leader changed", "node", n.cfg.NodeID, "from", old, "to", cur, "term", n.raft.CurrentTerm())
		if n.noQuorum.Swap(false) {
			n.log.Info("quorum regained", "node", n.cfg.NodeID, "leader", cur)
		}
	}
	e.LeaderChanged(n.nodeByID(e, old), n.nodeByID(e, cur))
}

// leaderLease is Raft's LeaderLeaseTimeout: a leader that heard from no
// quorum for as long steps down.
func (n *Node) leaderLease() time.Duration {
	if n.cfg.LeaderLease > 0 {
		return n.cfg.LeaderLease
	}
	return min(n.cfg.HeartbeatTimeout/2, 500*time.Millisecond)
}

// raftEvent hears the Raft messages lockkv logs as events of its own
// (Raft's goroutines).
func (n *Node) raftEvent(msg string) {
	if msg != quorumLostMsg || n.raft == nil {
		return
	}
	// The voters that did not answer within the leader lease.
	lease := n.leaderLease()
	var silent []string
	voters := 0
	for _, s := range n.raft.GetConfiguration().Configuration().Servers {
		if s.Suffrage != raft.Voter {
			continue
		}
		voters++
		if string(s.ID) == n.cfg.NodeID {
			continue
		}
		if p := n.progress.progress(string(s.ID)); p.contact.IsZero() || time.Since(p.contact) > lease {
			silent = append(silent, string(s.ID))
		}
	}
	n.noQuorum.Store(true)
	n.log.Warn("quorum lost: stepping down as leader", "node", n.cfg.NodeID, "term", n.raft.CurrentTerm(),
		"voters", voters, "not_answering", strings.Join(silent, ","))
}

// nodeByID describes member id, its client address from e's member
// registry (command goroutine); the zero Node for "".
func (n *Node) nodeByID(e *engine.Engine, id string) engine.Node {
	if id == "" {
		return engine.Node{}
	}
	for _, m := range n.Nodes() {
		if m.ID == id {
			if a := e.MemberAddr(id); a != "" {
				m.ClientAddr = a
			}
			return m
		}
	}
	return engine.Node{ID: id, ClientAddr: n.clientAddr(e, id), LagMs: -1, ReplLagMs: -1}
}

const raftFollower = raft.Follower

// members in ID order, as engine.Cluster wants them.
func sortNodes(ns []engine.Node) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].ID < ns[j].ID })
}

// storeLockWait is how long opening a store waits for a lock another
// process (not a lockkv of this version: the data dir's LOCK keeps those
// out) holds on its file.
const storeLockWait = 10 * time.Second

// openLog opens the Raft log and stable store in DataDir.
func (n *Node) openLog() (raft.LogStore, raft.StableStore, error) {
	dir := n.cfg.DataDir
	switch n.cfg.LogStore {
	case "", "wal":
		if err := os.MkdirAll(filepath.Join(dir, "wal"), 0o755); err != nil {
			return nil, nil, fmt.Errorf("replication: %w", err)
		}
		// The WAL does not close the metadata store it opens itself
		// (raft-wal v0.4.0), which would keep its file lock after
		// Shutdown: it gets one it can close.
		meta := &metadb.BoltMetaDB{}
		walDir := filepath.Join(dir, "wal")
		if err := n.waitUnlocked(filepath.Join(walDir, metadb.FileName), storeLockWait); err != nil {
			return nil, nil, fmt.Errorf("replication: opening the Raft log: %w", err)
		}
		files := wal.WithSegmentFiler(segment.NewFiler(walDir, fs.New()))
		if n.cfg.NoSync {
			files = wal.WithSegmentFiler(segment.NewFiler(walDir, noSyncVFS{fs.New()}))
		}
		w, err := wal.Open(walDir, wal.WithMetaStore(meta), files, wal.WithLogger(n.rlog.Named("wal")))
		if err != nil {
			meta.Close()
			return nil, nil, fmt.Errorf("replication: opening the Raft log: %w", err)
		}
		n.closer = append(n.closer, w, meta)
		return w, w, nil
	case "bolt":
		if err := n.waitUnlocked(filepath.Join(dir, "raft.db"), storeLockWait); err != nil {
			return nil, nil, fmt.Errorf("replication: opening the Raft log: %w", err)
		}
		bolt, err := raftboltdb.New(raftboltdb.Options{
			Path:   filepath.Join(dir, "raft.db"),
			NoSync: n.cfg.NoSync,
			// The freelist is rebuilt when the file is opened instead of
			// being written with every commit: fewer pages per fsync.
			BoltOptions: &bbolt.Options{NoFreelistSync: true, FreelistType: bbolt.FreelistMapType, Timeout: time.Second},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("replication: opening the Raft log: %w", err)
		}
		n.closer = append(n.closer, bolt)
		return bolt, bolt, nil
	}
	return nil, nil, fmt.Errorf("replication: unknown log store %q (want wal or bolt)", n.cfg.LogStore)
}
