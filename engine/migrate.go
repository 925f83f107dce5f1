package engine

import (
	"bufio"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
)

// MIGRATE (Redis's cluster.c migrateCommand): DUMP the keys, send them to
// another server as RESTORE (after AUTH and SELECT), and delete each one
// the target accepted unless COPY. As in Redis the command goroutine
// waits for the target (at most the timeout per read or write); unlike
// Redis, no connection is cached between calls, so every call sends
// SELECT.
//
// On a cluster only the leader talks to the target, and only the
// deletions go through the log: at the replication gate
// (migrateOnLeader) the leader waits until none of its ops is in flight
// (a write in flight to a migrated key would be lost under the deletion)
// and, for linearizable reads, for a confirmed leadership round; it then
// runs the transfer on the command goroutine and proposes the keys the
// target took as an internal MIGRATE (migratedMarker) that every node
// applies as their deletion, answering the transfer's reply. A MIGRATE
// inside MULTI or a script on a cluster node is refused: it runs where
// the transaction is applied, on every node.

var migrateCommands = []*Spec{
	{Name: "migrate", Arity: -6, Flags: Write, Keys: migrateKeys, KeySpecs: []KeySpec{
		{Flags: KeyRW | KeyAccess | KeyDelete, Pos: 3, KeyStep: 1},
		{Flags: KeyRW | KeyAccess | KeyDelete | KeyIncomplete, Begin: BeginKeyword, Keyword: "KEYS", StartFrom: -2, LastKey: -1, KeyStep: 1},
	}, ACL: []string{"keyspace", "dangerous"}, Tips: []string{"nondeterministic_output"}, LeaderGate: (*Ctx).migrateOnLeader, Fn: migrateCmd},
}

func init() { Register(migrateCommands) }

// migrateKeys is migrateGetKeys: the key argument, or the keys after
// KEYS when the key argument is empty.
func migrateKeys(args [][]byte) []int {
	for j := 6; j < len(args); j++ {
		switch {
		case cstr.EqualFold(cstr.CString(args[j]), "auth"):
			j++
		case cstr.EqualFold(cstr.CString(args[j]), "auth2"):
			j += 2
		case cstr.EqualFold(cstr.CString(args[j]), "keys") && len(args[3]) == 0:
			var out []int
			for k := j + 1; k < len(args); k++ {
				out = append(out, k)
			}
			return out
		}
	}
	return []int{3}
}

// migrateOpts are MIGRATE's parsed arguments.
type migrateOpts struct {
	copyKeys, replace  bool
	username, password []byte
	hasPassword        bool
	firstKey, numKeys  int
	timeout, dbid      int64
}

// parseMigrate parses MIGRATE's arguments, replying on error.
func parseMigrate(c *Ctx, args [][]byte) (migrateOpts, bool) {
	m := migrateOpts{firstKey: 3, numKeys: 1}
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := cstr.CString(args[j])
		switch {
		case cstr.EqualFold(opt, "copy"):
			m.copyKeys = true
		case cstr.EqualFold(opt, "replace"):
			m.replace = true
		case cstr.EqualFold(opt, "auth"):
			if more < 1 {
				c.Error(ErrSyntax)
				return m, false
			}
			j++
			m.password, m.hasPassword = args[j], true
		case cstr.EqualFold(opt, "auth2"):
			if more < 2 {
				c.Error(ErrSyntax)
				return m, false
			}
			m.username, m.password, m.hasPassword = args[j+1], args[j+2], true
			j += 2
		case cstr.EqualFold(opt, "keys"):
			if len(args[3]) != 0 {
				c.Error(ErrMigrateKeysArg)
				return m, false
			}
			m.firstKey, m.numKeys = j+1, len(args)-j-1
			j = len(args)
		default:
			c.Error(ErrSyntax)
			return m, false
		}
	}
	var ok bool
	if m.timeout, ok = redisnum.ParseInt(args[5]); !ok {
		c.Error(ErrNotInt)
		return m, false
	}
	if m.dbid, ok = redisnum.ParseInt(args[4]); !ok {
		c.Error(ErrNotInt)
		return m, false
	}
	if m.timeout <= 0 {
		m.timeout = 1000
	}
	return m, true
}

// migratedMarker, in the host position, marks the internal MIGRATE a
// cluster's leader proposes: MIGRATE marker "" "" 0 0 reply key...
// deletes the keys and answers reply.
const migratedMarker = "\x00lockkv-migrated"

func migrateCmd(c *Ctx, args [][]byte) {
	if c.Applying && len(args) >= 7 && string(args[1]) == migratedMarker {
		for _, k := range args[7:] {
			if c.DB.Delete(string(k)) {
				c.Modified(k)
			}
		}
		c.W.Raw(args[6])
		return
	}
	m, ok := parseMigrate(c, args)
	if !ok {
		return
	}
	if c.E.Replicated() {
		// Applied from the log (in MULTI or a script): every node
		// would connect to the target.
		c.Error(ErrMigrateCluster)
		return
	}
	taken, reply := migrateTransfer(c, args, m)
	if !m.copyKeys {
		for _, k := range taken {
			if c.DB.Delete(string(k)) {
				c.Modified(k)
			}
		}
	}
	c.W.Raw(reply)
}

// migrateOnLeader is MIGRATE at a cluster leader's replication gate; it
// reports whether it took the command over (it always does).
func (c *Ctx) migrateOnLeader(args [][]byte) bool {
	e, rs, cl := c.E, c.E.repl, c.C
	if rs.inflight > 0 {
		e.park(cl, parkBehindExec)
		rs.execWaiters = append(rs.execWaiters, cl)
		return true
	}
	if e.Config.ReadMode == config.ReadLinearizable && cl.repl.readNeed > rs.readConfirmed {
		e.park(cl, parkReadRound)
		rs.readWaiters = append(rs.readWaiters, cl)
		if rs.readStarted < cl.repl.readNeed {
			rs.readStarted = cl.repl.readNeed
			rs.r.ConfirmLeadership(cl.repl.readNeed)
		}
		return true
	}
	m, ok := parseMigrate(c, args)
	if !ok {
		return true
	}
	taken, reply := migrateTransfer(c, args, m)
	if len(taken) == 0 || m.copyKeys {
		c.W.Raw(reply)
		return true
	}
	op := [][]byte{[]byte("MIGRATE"), []byte(migratedMarker), nil, nil, []byte("0"), []byte("0"), reply}
	e.propose(cl, OpCommand, [][][]byte{copyArgs(append(op, taken...))})
	return true
}

// migrateTransfer DUMPs the keys, sends them to the target and returns
// the keys it took and MIGRATE's reply; it deletes nothing.
func migrateTransfer(c *Ctx, args [][]byte, m migrateOpts) (taken [][]byte, reply []byte) {
	type kv struct {
		key     []byte
		payload []byte
		ttl     int64
	}
	var keys []kv
	cfg := c.E.DumpConfig()
	for j := 0; j < m.numKeys; j++ {
		k := args[m.firstKey+j]
		e := c.Lookup(k)
		if e == nil {
			continue
		}
		var ttl int64
		if e.Expire != 0 {
			ttl = max(e.Expire-c.Now, 1)
		}
		keys = append(keys, kv{key: k, payload: rdb.Payload(e.Value, cfg), ttl: ttl})
	}
	if len(keys) == 0 {
		return nil, []byte("+NOKEY\r\n")
	}
	var w resp.Writer
	if m.hasPassword {
		if m.username != nil {
			w.Array(3)
			w.BulkString("AUTH")
			w.Bulk(m.username)
		} else {
			w.Array(2)
			w.BulkString("AUTH")
		}
		w.Bulk(m.password)
	}
	w.Array(2)
	w.BulkString("SELECT")
	w.BulkString(strconv.FormatInt(m.dbid, 10))
	for _, k := range keys {
		if m.replace {
			w.Array(5)
		} else {
			w.Array(4)
		}
		w.BulkString("RESTORE")
		w.Bulk(k.key)
		w.BulkString(strconv.FormatInt(k.ttl, 10))
		w.Bulk(k.payload)
		if m.replace {
			w.BulkString("REPLACE")
		}
	}
	d := time.Duration(m.timeout) * time.Millisecond
	addr := net.JoinHostPort(string(args[1]), string(args[2]))
	pre := 1 + int(b2i(m.hasPassword)) // AUTH's and SELECT's replies come first
	var replies [][]byte
	var werr, rerr error
	for try := 0; try < 2; try++ {
		nc, err := net.DialTimeout("tcp", addr, d)
		if errors.Is(err, syscall.ECONNREFUSED) {
			// Redis's blocking connect waits for the socket to be
			// writable and does not look at its error: a refused
			// connection fails at the first write.
			werr = err
			continue
		}
		if err != nil {
			return nil, errorReply(ErrMigrateConnect)
		}
		replies, werr, rerr = migrateExchange(nc, w.B, int64(pre+len(keys)), d)
		nc.Close()
		// Redis tries again once, unless it timed out or a reply came.
		if (werr == nil && rerr == nil) || len(replies) > 0 || isTimeout(werr) || isTimeout(rerr) {
			break
		}
	}
	// A failed AUTH or SELECT fails every key; a failed RESTORE only its
	// own, and is the error reported if it is the first.
	var targetErr []byte
	preFailed := false
	for i := 0; i < len(replies) && i < pre; i++ {
		if replies[i][0] == '-' {
			preFailed = true
			if targetErr == nil {
				targetErr = replies[i]
			}
		}
	}
	for i := pre; i < len(replies); i++ {
		if replies[i][0] == '-' || preFailed {
			if targetErr == nil {
				targetErr = replies[i]
			}
			continue
		}
		taken = append(taken, keys[i-pre].key)
	}
	switch {
	case targetErr != nil:
		return taken, errorReply("ERR Target instance replied with error: " + firstLine(targetErr[1:]))
	case werr != nil:
		return taken, errorReply(ErrMigrateWriting)
	case rerr != nil || len(replies) < pre+len(keys):
		return taken, errorReply(ErrMigrateReading)
	}
	return taken, []byte("+OK\r\n")
}

// errorReply is msg as an error reply.
func errorReply(msg string) []byte { return []byte("-" + msg + "\r\n") }

// migrateExchange writes the request and reads up to n replies.
func migrateExchange(nc net.Conn, req []byte, n int64, d time.Duration) (replies [][]byte, werr, rerr error) {
	for pos := 0; pos < len(req); {
		end := min(pos+64<<10, len(req))
		nc.SetWriteDeadline(time.Now().Add(d))
		k, err := nc.Write(req[pos:end])
		if err != nil {
			return nil, err, nil
		}
		pos += k
	}
	br := bufio.NewReader(nc)
	for i := int64(0); i < n; i++ {
		nc.SetReadDeadline(time.Now().Add(d))
		r, err := resp.ReadReply(br, nil)
		if err != nil {
			return replies, nil, err
		}
		replies = append(replies, r)
	}
	return replies, nil, nil
}

func isTimeout(err error) bool {
	return err != nil && errors.Is(err, os.ErrDeadlineExceeded)
}

// firstLine is a reply's first line without its CRLF (Redis reads the
// target's replies a line at a time).
func firstLine(b []byte) string {
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' || b[i] == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}
