// Package rdbrestore replays an RDB file into a running server as
// commands: SELECT, RESTORE key deadline payload ABSTTL REPLACE for every
// key, FUNCTION RESTORE ... REPLACE for every function library. Through a
// client connection the keys go where any write goes: on a cluster, into
// the Raft log, so every member applies them. lockkv uses it for
// `lockkv restore-rdb` and for --load-rdb on a cluster node; it works
// against redis-server as well.
package rdbrestore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// Stats counts what a restore sent.
type Stats struct {
	Keys, Functions int
}

// batch bounds the commands in flight before their replies are read.
const batch = 256

// Restore reads the RDB file data and sends its contents on rw (a
// connection that is already authenticated), pipelined, checking every
// reply. It stops at the first error reply, naming the key.
func Restore(rw io.ReadWriter, data []byte) (Stats, error) {
	var st Stats
	br := bufio.NewReader(rw)
	var w resp.Writer
	var what []string // per command in flight: what it restores
	flush := func() error {
		if len(what) == 0 {
			return nil
		}
		if _, err := rw.Write(w.B); err != nil {
			return err
		}
		w.B = w.B[:0]
		for _, name := range what {
			reply, err := resp.ReadReply(br, nil)
			if err != nil {
				return err
			}
			if reply[0] == '-' {
				return fmt.Errorf("%s: %s", name, reply[1:len(reply)-2])
			}
		}
		what = what[:0]
		return nil
	}
	send := func(name string, args ...[]byte) error {
		w.Array(len(args))
		for _, a := range args {
			w.Bulk(a)
		}
		what = append(what, name)
		if len(what) >= batch || len(w.B) >= 4<<20 {
			return flush()
		}
		return nil
	}
	db := -1
	lim := rdb.Limits{
		HashMaxListpackEntries: math.MaxInt, HashMaxListpackValue: math.MaxInt,
		SetMaxIntsetEntries:    math.MaxInt,
		ZSetMaxListpackEntries: math.MaxInt, ZSetMaxListpackValue: math.MaxInt,
		MaxString: math.MaxInt32,
	}
	err := rdb.ReadFile(data, lim, rdb.FileHandler{
		Function: func(code []byte) error {
			p := rdb.AppendString([]byte{rdb.OpcodeFunction2}, code)
			st.Functions++
			return send("function library", []byte("FUNCTION"), []byte("RESTORE"), footer(p), []byte("REPLACE"))
		},
		Key: func(n int, key []byte, expire int64, _ store.Value, raw []byte) error {
			if n != db {
				db = n
				if err := send("SELECT "+strconv.Itoa(n), []byte("SELECT"), []byte(strconv.Itoa(n))); err != nil {
					return err
				}
			}
			st.Keys++
			return send(fmt.Sprintf("key %q", key), []byte("RESTORE"), key, []byte(strconv.FormatInt(expire, 10)), footer(raw), []byte("ABSTTL"), []byte("REPLACE"))
		},
	})
	if err != nil {
		return st, err
	}
	return st, flush()
}

// footer makes a DUMP payload of a value's encoding.
func footer(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, rdb.Version)
	return binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))
}
