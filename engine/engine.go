package engine

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// Engine is the state the command goroutine owns: the databases, the
// clients, pub/sub, blocked clients, configuration. Nothing in it is
// locked; exactly one goroutine may call its methods. New makes one.
type Engine struct {
	DBs    []*store.DB
	Clock  store.Clock
	Config *config.Config
	Stats  Stats
	// Rand is the engine's source of randomness (RANDOMKEY, SPOP, ...).
	Rand *rand.Rand

	StartTime time.Time
	RunID     string
	// IOThreadsActive is INFO's io_threads_active: the event loop's I/O
	// workers wrote the last round's replies (the server sets it).
	IOThreadsActive bool

	clients map[int64]*Client
	nextID  int64
	dirty   []*Client // clients whose W holds output to deliver
	current *Client   // client whose command is executing
	calling *Ctx      // the top-level command executing (callAt), see recover.go
	saves   saveState // SAVE and BGSAVE (save.go)
	scratch resp.Writer
	// sharedAccess holds the access data (see lfu.go; 0 for never) of
	// each of the integers 0..9999 Redis shares between keys: a read of
	// any key holding one updates the one object's LRU clock or LFU
	// counter, which OBJECT IDLETIME and FREQ of every key holding it
	// report. Allocated on first use.
	sharedAccess []int64
	// expireBacklog is set when the last active-expiry slice used its
	// whole budget (see activeExpire, NextWakeup).
	expireBacklog bool
	doneQueue     []func()
	// closing are the clients to close in FlushOutputs (closeAsync).
	closing []*Client
	ctxFree []*Ctx // free contexts, see callAt
	callSeq uint64 // client commands run so far, see callAt
	// Prefetch's queue, its database, and where its loads go so they are
	// not optimized away.
	prefetchKeys []string
	prefetchDB   int
	prefetchSink uint64

	pubsub   pubsubState
	watches  watchState
	blocking blockState
	tracking trackingState
	monitors monitorState
	slow     slowlogState
	locks    lockSampler

	scripting *scriptingState
	// What Options gave (see there).
	onBusy    func()
	scriptLog func(level int, msg string)
	log       *slog.Logger
	rewrite   func() error

	mem      memState
	srv      serverState
	sentinel sentinelState

	repl *replState

	// cluster is the Raft cluster this server belongs to, seen through
	// the member registry; nil when standalone. admin, transfer and lag
	// are the replication layer's other roles, each nil without it.
	cluster  *clusterView
	admin    ClusterAdmin
	transfer LeaderTransferer
	lag      LagReporter
}

// Stats are the counters INFO reports.
type Stats struct {
	Commands          int64
	Connections       int64
	RejectedConns     int64
	ExpiredKeys       int64
	KeyspaceHits      int64
	KeyspaceMisses    int64
	NetInputBytes     int64
	NetOutputBytes    int64
	Dirty             int64 // writes since start (Redis's server.dirty)
	PubSubMessages    int64
	TotalErrorReplies int64
	UnexpectedErrors  int64
	TotalBlockingKeys int64
	// IOThreadedReads and IOThreadedWrites are INFO's
	// io_threaded_reads_processed and io_threaded_writes_processed: the
	// connections the event loop's rounds read and wrote on its I/O
	// workers (Redis counts the clients of each round it hands to its
	// threads).
	IOThreadedReads  int64
	IOThreadedWrites int64
}

// newEngine returns an engine with cfg's databases and settings (nil:
// the defaults) on clock (New).
func newEngine(cfg *config.Config, clock store.Clock) *Engine {
	if cfg == nil {
		cfg = config.NewConfig()
	}
	e := &Engine{
		Clock:        clock,
		Config:       cfg,
		Rand:         rand.New(rand.NewPCG(uint64(clock.Now().UnixNano()), 0x6c6f636b6b76)),
		StartTime:    clock.Now(),
		clients:      map[int64]*Client{},
		prefetchKeys: make([]string, 0, 64),
	}
	e.RunID = randomHex(e.Rand, 40)
	e.DBs = make([]*store.DB, cfg.Databases)
	for i := range e.DBs {
		e.DBs[i] = store.NewDB()
	}
	e.saves.lastSave.Store(clock.Now().Unix())
	e.saves.savedDirty.Store(-1)
	e.initFeatures()
	return e
}

func randomHex(r *rand.Rand, n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hex[r.IntN(16)]
	}
	return string(b)
}

// NowMs returns the clock's current time in Unix milliseconds.
func (e *Engine) NowMs() int64 { return e.Clock.Now().UnixMilli() }

// Conn is what the network layer provides for a client connection. Its
// methods may be called from the engine goroutine.
type Conn interface {
	// Deliver queues encoded output for the client. It must copy b.
	Deliver(b []byte)
	// Close closes the connection after writing what it holds (QUIT,
	// or CLIENT KILL of the calling client, after its reply).
	Close()
	// Abort closes the connection at once, dropping the output it holds
	// (CLIENT KILL of another client, the idle timeout, an output buffer
	// over its limit); it must not wait for the peer.
	Abort()
	// Pending returns the output bytes delivered and not yet written to
	// the socket. It may be called from the engine goroutine at any time.
	Pending() int64
	// QueryBuffer returns the bytes read and not yet run, and the room
	// left in the read buffer (CLIENT LIST qbuf and qbuf-free).
	QueryBuffer() (used, free int64)
	// Blocked tells the connection that its client is blocked: the
	// pipeline it sent will finish later. held is set when the client
	// waits for something that may take any time (BLPOP, CLIENT PAUSE,
	// WAIT), not for its own replicated op to commit.
	Blocked(held bool)
	// SetAuthenticated tells the connection whether its client may send
	// what only authenticated clients may: the reader applies Redis's
	// tighter limits to a client that must AUTH first.
	SetAuthenticated(ok bool)
	RemoteAddr() string
	LocalAddr() string
}

// NewClient registers a client for conn (nil for internal clients such as
// the one scripts run as).
func (e *Engine) NewClient(conn Conn) *Client {
	e.nextID++
	now := e.NowMs()
	c := &Client{ID: e.nextID, Conn: conn, Created: now, LastInteraction: now}
	c.W.Proto = 2
	c.Authenticated = e.Config.RequirePass == ""
	if conn != nil {
		conn.SetAuthenticated(c.Authenticated)
		c.Local = IsLocalAddr(conn.RemoteAddr())
		e.clients[c.ID] = c
		e.srv.cronRing = append(e.srv.cronRing, c)
		e.Stats.Connections++
	}
	return c
}

// Accept takes a connection the server accepted (Redis's
// clientAcceptHandler) and returns its client, or nil when protected mode
// turns it away: the connection is then sent the reason and closed. Past
// maxclients the client is sent the error and closed after it. Both
// count as rejected connections.
func (e *Engine) Accept(conn Conn) *Client {
	if len(e.clients) < e.Config.MaxClients && e.protectedModeDenies(conn.RemoteAddr()) {
		// Counted as rejected, not as a connection.
		e.Stats.RejectedConns++
		conn.Deliver([]byte("-" + ErrProtectedMode + "\r\n"))
		conn.Close()
		return nil
	}
	cl := e.NewClient(conn)
	if len(e.clients) > e.Config.MaxClients {
		e.Stats.RejectedConns++
		e.Writer(cl).Error(ErrMaxClients)
		cl.CloseAfterReply = true
	}
	return cl
}

// FreeClient unregisters c and releases everything it holds (subscriptions,
// watched keys, blocked state). It is safe to call twice.
func (e *Engine) FreeClient(c *Client) {
	if c.freed {
		return
	}
	c.freed = true
	for _, b := range c.queue {
		e.doneQueue = append(e.doneQueue, b.done)
	}
	c.queue = nil
	e.unwatchAll(c)
	e.unblockClientOnFree(c)
	e.pubsubFreeClient(c)
	e.trackingFreeClient(c)
	e.monitorFreeClient(c)
	if e.repl != nil && e.repl.fwd != nil {
		e.repl.fwd.DropClient(c.ID)
	}
	delete(e.clients, c.ID)
}

// Clients returns the connected clients (not sorted).
func (e *Engine) Clients() map[int64]*Client { return e.clients }

// markDirty records that c has output to deliver.
func (e *Engine) markDirty(c *Client) {
	if !c.outDirty && c.Conn != nil {
		c.outDirty = true
		e.dirty = append(e.dirty, c)
	}
}

// FlushOutputs hands every client's pending output to its connection. The
// loop calls it once per iteration, so a pipeline's replies reach the
// socket in one write.
func (e *Engine) FlushOutputs() {
	e.resumeUnblocked()
	e.trackingBeforeSleep()
	var now int64
	for i, c := range e.dirty {
		c.outDirty = false
		if len(c.W.B) > 0 && !c.freed && !e.checkOutput(c, true) {
			e.Stats.NetOutputBytes += int64(len(c.W.B))
			c.Conn.Deliver(c.W.B)
			// Output is interaction too (Redis's writeToClient): a client
			// that receives invalidations is not idle.
			if now == 0 {
				now = e.NowMs()
			}
			c.LastInteraction = now
		}
		c.W.B = c.W.B[:0]
		if cap(c.W.B) > 64*1024 {
			c.W.B = nil
		}
		if c.CloseAfterReply && !c.freed && !c.closeASAP {
			c.Conn.Close()
			e.FreeClient(c)
		}
		e.dirty[i] = nil
	}
	e.dirty = e.dirty[:0]
	if len(e.closing) > 0 {
		e.freeClosing()
	}
	e.runDone()
	e.flushProposals()
}

// Writer returns c's output writer and marks c as having output.
func (e *Engine) Writer(c *Client) *resp.Writer {
	e.markDirty(c)
	return &c.W
}

// Cron runs periodic work: active expiry, blocked-client timeouts. The loop
// calls it about every 100 ms (Redis's hz 10) and when a deadline it asked
// for (NextWakeup) is reached.
func (e *Engine) Cron() {
	now := e.NowMs()
	e.serverCron(now) // ends an expired CLIENT PAUSE first
	e.outputCron(now)
	switch {
	case e.repl != nil:
		e.replExpire(now) // the leader proposes expiry
	case e.srv.pause == pauseOff:
		// Like Redis, no key expires actively during CLIENT PAUSE (a
		// failover must not see the keyspace change).
		e.activeExpire(now)
	}
	e.blockTimeouts(now)
	e.sampleLocks(now)
}

// NextWakeup returns the earliest time (Unix ms) the engine wants Cron to
// run, or 0 for no particular time.
func (e *Engine) NextWakeup() int64 {
	if e.expireBacklog && e.srv.pause == pauseOff {
		// Active expiry used its whole slice: more keys are due. Come
		// back at once; requests waiting meanwhile still go first or
		// interleave, since each slice is bounded.
		return e.NowMs()
	}
	at := e.blockNextDeadline()
	if p := e.pauseDeadline(); p > 0 && (at == 0 || p < at) {
		at = p
	}
	return at
}

// activeExpire reclaims expired keys in bounded slices so that a million
// expired locks never stall the loop.
func (e *Engine) activeExpire(now int64) {
	const budget = 2000
	left := budget
	for i, db := range e.DBs {
		if left <= 0 {
			break
		}
		left -= db.ExpireDue(now, left, func(key string) {
			e.keyExpired(i, key)
		})
	}
	// A used-up budget means due keys may remain: NextWakeup then asks for
	// another Cron right away, so a backlog drains at up to ~1M keys/s
	// when idle instead of 20,000 per second (2000 per 100 ms tick).
	e.expireBacklog = left <= 0
}

// keyExpired fires what Redis fires when it reclaims an expired key.
func (e *Engine) keyExpired(db int, key string) {
	e.Stats.ExpiredKeys++
	// Redis's deleteExpiredKeyAndPropagate: the event, then
	// signalModifiedKey (WATCH and tracking).
	e.notify(db, config.NotifyExpired, "expired", key)
	e.signalModified(db, key)
}

// ConfigChanged applies the effect of settings CONFIG SET changed (their
// canonical names) on the running engine.
func (e *Engine) ConfigChanged(names ...string) {
	for _, name := range names {
		switch name {
		case "requirepass":
			e.refreshAuth()
		case "maxmemory":
			e.maxmemoryChanged()
		}
	}
}
