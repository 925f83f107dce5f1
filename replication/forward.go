package replication

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
)

// Forwarding (the --forward option): a follower sends the commands it
// cannot run to the leader over one upstream connection per client, so
// the client's state there (database, protocol, WATCH, a blocking
// command) is its own, and relays the leader's replies unchanged.

type forwarder struct {
	n     *Node
	mu    sync.Mutex
	up    map[int64]*upstream
	conns atomic.Uint64 // connections numbered, for WATCH
}

type upstream struct {
	f      *forwarder
	client int64
	reqs   chan fwdReq
	// conn is written by serve's goroutine under mu, read by it freely;
	// DropClient closes it under mu (gone: no other is opened).
	mu     sync.Mutex
	gone   bool
	conn   *peerConn
	connNo uint64
	db     int
	proto  int
}

type fwdReq struct {
	addr  string
	db    int
	proto int
	cmds  [][][]byte
	watch uint64
	done  func(reply []byte, conn uint64, err error)
}

// Forwarder returns what the engine forwards through when the node was
// configured with Forward, else nil.
func (n *Node) Forwarder() engine.Forwarder {
	if !n.cfg.Forward {
		return nil
	}
	return &forwarder{n: n, up: map[int64]*upstream{}}
}

// Forward implements engine.Forwarder: cmds run on the leader at addr,
// in order, on the client's upstream connection; done gets the last one's
// reply, on the command goroutine.
func (f *forwarder) Forward(client int64, addr string, db, proto int, cmds [][][]byte, watchConn uint64, done func([]byte, uint64, error)) {
	f.mu.Lock()
	u := f.up[client]
	if u == nil {
		u = &upstream{f: f, client: client, reqs: make(chan fwdReq, 16)}
		f.up[client] = u
		go u.serve()
	}
	f.mu.Unlock()
	u.reqs <- fwdReq{addr: addr, db: db, proto: proto, cmds: cmds, watch: watchConn, done: done}
}

// DropClient closes a client's upstream connection.
func (f *forwarder) DropClient(client int64) {
	f.mu.Lock()
	u := f.up[client]
	delete(f.up, client)
	f.mu.Unlock()
	if u != nil {
		close(u.reqs)
		// A command still waiting on the leader (BLPOP) ends there,
		// as a gone client's does.
		u.mu.Lock()
		u.gone = true
		if u.conn != nil {
			u.conn.Close()
		}
		u.mu.Unlock()
	}
}

// setConn makes c (nil for none) the upstream connection; it reports
// false, closing c, once the client is gone.
func (u *upstream) setConn(c *peerConn) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if c != nil && u.gone {
		c.Close()
		return false
	}
	u.conn = c
	return true
}

func (u *upstream) serve() {
	defer func() {
		if u.conn != nil {
			u.conn.Close()
		}
	}()
	var w resp.Writer
	for req := range u.reqs {
		reply, err := u.do(&w, req)
		if err != nil && u.conn != nil {
			u.conn.Close()
			u.setConn(nil)
		}
		no := u.connNo
		u.f.n.run(func(*engine.Engine) { req.done(reply, no, err) })
	}
}

func (u *upstream) do(w *resp.Writer, req fwdReq) ([]byte, error) {
	if u.conn != nil && u.conn.addr != req.addr {
		u.conn.Close()
		u.setConn(nil)
	}
	if req.watch != 0 && (u.conn == nil || u.connNo != req.watch) {
		// The keys were WATCHed on a connection that broke or went to
		// a leader of before: the transaction aborts, as if they were
		// touched, without running.
		if req.proto == 3 {
			return []byte("_\r\n"), nil
		}
		return []byte("*-1\r\n"), nil
	}
	if u.conn == nil {
		c, err := dialPeer(req.addr, u.f.n.cfg.Password, u.f.n.cfg.ClientTLS, 2*time.Second)
		if err != nil {
			// Nothing was sent: the leader this node knows is gone (an
			// election is due). Answer as a cluster without a leader, so
			// clients retry, not with an error of unknown outcome.
			return []byte("-" + engine.ErrClusterDown + "\r\n"), nil
		}
		if !u.setConn(c) {
			return nil, net.ErrClosed
		}
		u.db, u.proto = 0, 2
		u.connNo = u.f.conns.Add(1)
	}
	w.Reset()
	skip := 0
	if req.proto != u.proto {
		w.Array(2)
		w.BulkString("HELLO")
		w.BulkString(strconv.Itoa(req.proto))
		skip++
	}
	if req.db != u.db {
		w.Array(2)
		w.BulkString("SELECT")
		w.BulkString(strconv.Itoa(req.db))
		skip++
	}
	for _, cmd := range req.cmds {
		w.Array(len(cmd))
		for _, a := range cmd {
			w.Bulk(a)
		}
	}
	skip += len(req.cmds) - 1
	if _, err := u.conn.nc.Write(w.B); err != nil {
		return nil, err
	}
	u.proto, u.db = req.proto, req.db
	if len(req.cmds) > 1 {
		// A transaction may SELECT or HELLO: the next request sets
		// both again.
		u.db, u.proto = -1, 0
	}
	var reply []byte
	for i := 0; i <= skip; i++ {
		var err error
		if reply, err = resp.ReadReply(u.conn.br, reply[:0]); err != nil {
			return nil, err
		}
		for len(reply) > 0 && reply[0] == '>' && i == skip {
			// A push (invalidation) is not the reply; read on.
			if reply, err = resp.ReadReply(u.conn.br, reply[:0]); err != nil {
				return nil, err
			}
		}
	}
	return append([]byte(nil), reply...), nil
}
