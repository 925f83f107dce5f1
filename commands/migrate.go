package commands

import (
	"bufio"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

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
// SELECT. On a cluster node MIGRATE is refused: it is a write that every
// node would apply, and every node would then connect to the target.

var migrateCommands = []*Spec{
	{Name: "migrate", Arity: -6, Flags: Write, FirstKey: 3, LastKey: 3, Step: 1, Keys: migrateKeys, KeyFlags: []string{"RW", "access", "delete"}, ACL: []string{"keyspace", "write", "slow", "dangerous"}, Fn: migrateCmd},
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

func migrateCmd(c *Ctx, args [][]byte) {
	var (
		copyKeys, replace  bool
		username, password []byte
		hasPassword        bool
		firstKey, numKeys  = 3, 1
	)
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := cstr.CString(args[j])
		switch {
		case cstr.EqualFold(opt, "copy"):
			copyKeys = true
		case cstr.EqualFold(opt, "replace"):
			replace = true
		case cstr.EqualFold(opt, "auth"):
			if more < 1 {
				c.Error(ErrSyntax)
				return
			}
			j++
			password, hasPassword = args[j], true
		case cstr.EqualFold(opt, "auth2"):
			if more < 2 {
				c.Error(ErrSyntax)
				return
			}
			username, password, hasPassword = args[j+1], args[j+2], true
			j += 2
		case cstr.EqualFold(opt, "keys"):
			if len(args[3]) != 0 {
				c.Error(ErrMigrateKeysArg)
				return
			}
			firstKey, numKeys = j+1, len(args)-j-1
			j = len(args)
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	timeout, ok := redisnum.ParseInt(args[5])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	dbid, ok := redisnum.ParseInt(args[4])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	if c.E.Replicated() {
		c.Error(ErrMigrateCluster)
		return
	}
	type kv struct {
		key     []byte
		payload []byte
		ttl     int64
	}
	var keys []kv
	cfg := c.E.dumpConfig()
	for j := 0; j < numKeys; j++ {
		k := args[firstKey+j]
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
		c.W.Status("NOKEY")
		return
	}
	var w resp.Writer
	if hasPassword {
		if username != nil {
			w.Array(3)
			w.BulkString("AUTH")
			w.Bulk(username)
		} else {
			w.Array(2)
			w.BulkString("AUTH")
		}
		w.Bulk(password)
	}
	w.Array(2)
	w.BulkString("SELECT")
	w.BulkString(strconv.FormatInt(dbid, 10))
	for _, k := range keys {
		if replace {
			w.Array(5)
		} else {
			w.Array(4)
		}
		w.BulkString("RESTORE")
		w.Bulk(k.key)
		w.BulkString(strconv.FormatInt(k.ttl, 10))
		w.Bulk(k.payload)
		if replace {
			w.BulkString("REPLACE")
		}
	}
	d := time.Duration(timeout) * time.Millisecond
	addr := net.JoinHostPort(string(args[1]), string(args[2]))
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
			c.Error(ErrMigrateConnect)
			return
		}
		replies, werr, rerr = migrateExchange(nc, w.B, 1+b2i(hasPassword)+int64(len(keys)), d)
		nc.Close()
		// Redis tries again once, unless it timed out or a reply came.
		if (werr == nil && rerr == nil) || len(replies) > 0 || isTimeout(werr) || isTimeout(rerr) {
			break
		}
	}
	// The replies: AUTH's, SELECT's, then one per key. A failed AUTH or
	// SELECT fails every key; a failed RESTORE only its own, and is the
	// error reported if it is the first.
	var targetErr []byte
	pre := 1 + int(b2i(hasPassword))
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
		r := replies[i]
		if r[0] == '-' || preFailed {
			if targetErr == nil {
				targetErr = r
			}
			continue
		}
		if !copyKeys {
			k := keys[i-pre].key
			if c.DB.Delete(string(k)) {
				c.Modified(k)
			}
		}
	}
	switch {
	case targetErr != nil:
		c.Error("ERR Target instance replied with error: " + firstLine(targetErr[1:]))
	case werr != nil:
		c.Error(ErrMigrateWriting)
	case rerr != nil || len(replies) < pre+len(keys):
		c.Error(ErrMigrateReading)
	default:
		c.W.OK()
	}
}

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
