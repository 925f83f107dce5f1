package conformance

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listDo runs each command on both servers.
func listDo(p *Pair, cmds ...[]string) {
	p.t.Helper()
	for _, c := range cmds {
		p.Do(c...)
	}
}

func TestListPush(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"LPUSH", "l", "a"},
		[]string{"LPUSH", "l", "b", "c", "d"},
		[]string{"RPUSH", "l", "x", "y"},
		[]string{"LRANGE", "l", "0", "-1"},
		[]string{"LPUSHX", "nokey", "a"},
		[]string{"RPUSHX", "nokey", "a", "b"},
		[]string{"EXISTS", "nokey"},
		[]string{"LPUSHX", "l", "p", "q"},
		[]string{"RPUSHX", "l", "r"},
		[]string{"LRANGE", "l", "0", "-1"},
		[]string{"LPUSH", "l"},
		[]string{"RPUSH"},
		[]string{"LPUSHX", "l"},
		[]string{"RPUSH", "e", ""},
		[]string{"LRANGE", "e", "0", "-1"},
		[]string{"SET", "s", "v"},
		[]string{"LPUSH", "s", "a"},
		[]string{"RPUSH", "s", "a"},
		[]string{"LPUSHX", "s", "a"},
		[]string{"RPUSHX", "s", "a"},
		[]string{"TYPE", "l"},
		[]string{"OBJECT", "ENCODING", "l"},
		[]string{"RPUSH", "bin", "a\x00b", "\r\n", strings.Repeat("z", 10000)},
		[]string{"LRANGE", "bin", "0", "-1"},
		[]string{"LLEN", "bin"},
	)
	// Big list: encoding stays quicklist in 7.0.
	args := []string{"RPUSH", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, strconv.Itoa(i))
	}
	p.Do(args...)
	listDo(p,
		[]string{"OBJECT", "ENCODING", "big"},
		[]string{"LLEN", "big"},
		[]string{"LINDEX", "big", "500"},
		[]string{"LRANGE", "big", "990", "2000"},
	)
}

func TestListPop(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"RPUSH", "l", "a", "b", "c", "d", "e", "f"},
		[]string{"LPOP", "l"},
		[]string{"RPOP", "l"},
		[]string{"LPOP", "l", "2"},
		[]string{"RPOP", "l", "1"},
		[]string{"LPOP", "l", "0"},
		[]string{"RPOP", "l", "0"},
		[]string{"LRANGE", "l", "0", "-1"},
		[]string{"RPOP", "l", "10"},
		[]string{"EXISTS", "l"},
		[]string{"LPOP", "l"},
		[]string{"RPOP", "l"},
		[]string{"LPOP", "l", "0"},
		[]string{"LPOP", "l", "3"},
		[]string{"RPOP", "l", "3"},
		[]string{"LPOP", "l", "-1"},
		[]string{"LPOP", "l", "x"},
		[]string{"LPOP", "l", "1", "2"},
		[]string{"RPOP", "l", "1", "2"},
		[]string{"LPOP"},
		[]string{"RPUSH", "l", "a"},
		[]string{"LPOP", "l", "-1"},
		[]string{"LPOP", "l", "9223372036854775808"},
		[]string{"LPOP", "l", "9223372036854775807"},
		[]string{"EXISTS", "l"},
		[]string{"SET", "s", "v"},
		[]string{"LPOP", "s"},
		[]string{"RPOP", "s", "1"},
		[]string{"LPOP", "s", "0"},
		[]string{"LPOP", "s", "x"},
		[]string{"RPUSH", "m", "1", "2", "3", "4"},
		[]string{"RPOP", "m", "3"},
		[]string{"LPOP", "m", "5"},
	)
}

func TestListRead(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"RPUSH", "l", "a", "b", "c", "d", "e"},
		[]string{"LLEN", "l"},
		[]string{"LLEN", "nokey"},
		[]string{"LLEN"},
		[]string{"LLEN", "l", "x"},
	)
	for _, i := range []string{"0", "4", "5", "-1", "-5", "-6", "100", "-100", "x", "1.5", "", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "+1", "01"} {
		p.Do("LINDEX", "l", i)
		p.Do("LINDEX", "nokey", i)
	}
	for _, r := range [][2]string{
		{"0", "-1"}, {"0", "0"}, {"1", "3"}, {"-3", "-1"}, {"-100", "100"}, {"3", "1"},
		{"5", "10"}, {"-1", "-2"}, {"4", "4"}, {"-6", "0"}, {"2", "-10"},
		{"9223372036854775807", "9223372036854775807"}, {"-9223372036854775808", "9223372036854775807"},
		{"x", "1"}, {"1", "x"}, {"1.0", "2"},
	} {
		p.Do("LRANGE", "l", r[0], r[1])
		p.Do("LRANGE", "nokey", r[0], r[1])
	}
	listDo(p,
		[]string{"LRANGE", "l", "0"},
		[]string{"LINDEX", "l"},
		[]string{"SET", "s", "v"},
		[]string{"LLEN", "s"},
		[]string{"LINDEX", "s", "0"},
		[]string{"LINDEX", "s", "x"},
		[]string{"LRANGE", "s", "0", "-1"},
		[]string{"LRANGE", "s", "x", "-1"},
	)
}

func TestListLSET(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"LSET", "nokey", "0", "x"},
		[]string{"LSET", "nokey", "x", "x"},
		[]string{"RPUSH", "l", "a", "b", "c"},
		[]string{"LSET", "l", "0", "A"},
		[]string{"LSET", "l", "-1", "C"},
		[]string{"LSET", "l", "1", ""},
		[]string{"LSET", "l", "3", "x"},
		[]string{"LSET", "l", "-4", "x"},
		[]string{"LSET", "l", "x", "x"},
		[]string{"LSET", "l", "9223372036854775808", "x"},
		[]string{"LRANGE", "l", "0", "-1"},
		[]string{"LSET", "l", "0"},
		[]string{"SET", "s", "v"},
		[]string{"LSET", "s", "0", "x"},
		[]string{"LSET", "s", "x", "x"},
	)
}

func TestListLREM(t *testing.T) {
	p := NewPair(t)
	for _, count := range []string{"0", "1", "2", "-1", "-2", "100", "-100", "-9223372036854775808", "9223372036854775807"} {
		listDo(p,
			[]string{"DEL", "l"},
			[]string{"RPUSH", "l", "a", "b", "a", "c", "a", "b", "a"},
			[]string{"LREM", "l", count, "a"},
			[]string{"LRANGE", "l", "0", "-1"},
			[]string{"LREM", "l", count, "b"},
			[]string{"LRANGE", "l", "0", "-1"},
		)
	}
	listDo(p,
		[]string{"DEL", "l"},
		[]string{"RPUSH", "l", "x", "x"},
		[]string{"LREM", "l", "0", "y"},
		[]string{"LREM", "l", "0", "x"},
		[]string{"EXISTS", "l"},
		[]string{"LREM", "l", "0", "x"},
		[]string{"LREM", "l", "x", "x"},
		[]string{"LREM", "l", "1"},
		[]string{"SET", "s", "v"},
		[]string{"LREM", "s", "0", "v"},
		[]string{"LREM", "s", "x", "v"},
	)
}

func TestListLTRIM(t *testing.T) {
	p := NewPair(t)
	for _, r := range [][2]string{
		{"0", "-1"}, {"1", "-1"}, {"0", "0"}, {"1", "3"}, {"-3", "-1"}, {"-100", "100"},
		{"3", "1"}, {"5", "10"}, {"-1", "-2"}, {"4", "4"}, {"2", "-10"}, {"0", "-6"},
		{"9223372036854775807", "9223372036854775807"}, {"-9223372036854775808", "9223372036854775807"},
	} {
		listDo(p,
			[]string{"DEL", "l"},
			[]string{"RPUSH", "l", "a", "b", "c", "d", "e"},
			[]string{"LTRIM", "l", r[0], r[1]},
			[]string{"LRANGE", "l", "0", "-1"},
			[]string{"EXISTS", "l"},
		)
	}
	listDo(p,
		[]string{"LTRIM", "nokey", "0", "1"},
		[]string{"LTRIM", "nokey", "x", "1"},
		[]string{"LTRIM", "l", "0", "x"},
		[]string{"LTRIM", "l", "0"},
		[]string{"SET", "s", "v"},
		[]string{"LTRIM", "s", "0", "1"},
		[]string{"LTRIM", "s", "x", "1"},
	)
}

func TestListLINSERT(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"LINSERT", "nokey", "BEFORE", "a", "x"},
		[]string{"LINSERT", "nokey", "middle", "a", "x"},
		[]string{"RPUSH", "l", "a", "b", "c", "b"},
		[]string{"LINSERT", "l", "BEFORE", "b", "x"},
		[]string{"LINSERT", "l", "after", "b", "y"},
		[]string{"LINSERT", "l", "AfTeR", "c", "z"},
		[]string{"LINSERT", "l", "before", "a", "0"},
		[]string{"LINSERT", "l", "before", "nope", "0"},
		[]string{"LINSERT", "l", "around", "a", "0"},
		[]string{"LRANGE", "l", "0", "-1"},
		[]string{"LINSERT", "l", "before", "a"},
		[]string{"SET", "s", "v"},
		[]string{"LINSERT", "s", "before", "v", "x"},
		[]string{"LINSERT", "s", "bad", "v", "x"},
	)
}

func TestListLPOS(t *testing.T) {
	p := NewPair(t)
	p.Do("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c")
	for _, opts := range [][]string{
		{}, {"RANK", "1"}, {"RANK", "2"}, {"RANK", "3"}, {"RANK", "4"}, {"RANK", "-1"}, {"RANK", "-2"},
		{"RANK", "-3"}, {"RANK", "-4"}, {"RANK", "0"}, {"RANK", "x"}, {"COUNT", "0"}, {"COUNT", "1"},
		{"COUNT", "2"}, {"COUNT", "10"}, {"COUNT", "-1"}, {"COUNT", "x"}, {"MAXLEN", "0"}, {"MAXLEN", "3"},
		{"MAXLEN", "7"}, {"MAXLEN", "-1"}, {"MAXLEN", "x"}, {"RANK", "2", "COUNT", "0"},
		{"RANK", "-1", "COUNT", "2"}, {"RANK", "-2", "COUNT", "0", "MAXLEN", "2"},
		{"COUNT", "0", "MAXLEN", "7"}, {"RANK", "1", "RANK", "2"}, {"rank", "2", "count", "1", "maxlen", "0"},
		{"RANK"}, {"COUNT"}, {"MAXLEN"}, {"FOO", "1"}, {"RANK", "-9223372036854775808"},
		{"RANK", "9223372036854775807"}, {"RANK", "0", "COUNT", "-1"}, {"COUNT", "-1", "RANK", "0"},
	} {
		for _, ele := range []string{"c", "a", "zz"} {
			p.Do(append([]string{"LPOS", "l", ele}, opts...)...)
		}
		p.Do(append([]string{"LPOS", "nokey", "c"}, opts...)...)
	}
	listDo(p,
		[]string{"LPOS", "l"},
		[]string{"SET", "s", "v"},
		[]string{"LPOS", "s", "v"},
		[]string{"LPOS", "s", "v", "COUNT", "0"},
		[]string{"LPOS", "s", "v", "RANK", "0"},
	)
}

func TestListLMOVE(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"RPUSH", "src", "a", "b", "c", "d"},
		[]string{"LMOVE", "src", "dst", "LEFT", "RIGHT"},
		[]string{"LMOVE", "src", "dst", "RIGHT", "LEFT"},
		[]string{"LMOVE", "src", "dst", "left", "left"},
		[]string{"LMOVE", "src", "dst", "right", "right"},
		[]string{"LRANGE", "dst", "0", "-1"},
		[]string{"EXISTS", "src"},
		[]string{"LMOVE", "src", "dst", "LEFT", "RIGHT"},
		[]string{"LMOVE", "dst", "dst", "LEFT", "RIGHT"},
		[]string{"LRANGE", "dst", "0", "-1"},
		[]string{"LMOVE", "dst", "dst", "RIGHT", "LEFT"},
		[]string{"LMOVE", "dst", "dst", "LEFT", "LEFT"},
		[]string{"LRANGE", "dst", "0", "-1"},
		[]string{"LMOVE", "dst", "x", "UP", "LEFT"},
		[]string{"LMOVE", "dst", "x", "LEFT", "DOWN"},
		[]string{"LMOVE", "nokey", "x", "UP", "LEFT"},
		[]string{"LMOVE", "dst", "x", "LEFT"},
		[]string{"SET", "s", "v"},
		[]string{"LMOVE", "s", "dst", "LEFT", "LEFT"},
		[]string{"LMOVE", "dst", "s", "LEFT", "LEFT"},
		[]string{"LMOVE", "nokey", "s", "LEFT", "LEFT"},
		[]string{"LRANGE", "dst", "0", "-1"},
		[]string{"RPUSH", "one", "x"},
		[]string{"LMOVE", "one", "one", "LEFT", "RIGHT"},
		[]string{"LRANGE", "one", "0", "-1"},
		[]string{"RPOPLPUSH", "one", "two"},
		[]string{"EXISTS", "one"},
		[]string{"RPOPLPUSH", "one", "two"},
		[]string{"RPUSH", "two", "y", "z"},
		[]string{"RPOPLPUSH", "two", "two"},
		[]string{"LRANGE", "two", "0", "-1"},
		[]string{"RPOPLPUSH", "two", "s"},
		[]string{"RPOPLPUSH", "s", "two"},
		[]string{"RPOPLPUSH", "two"},
	)
}

func TestListLMPOP(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"LMPOP", "2", "a", "b", "LEFT"},
		[]string{"RPUSH", "b", "1", "2", "3", "4", "5"},
		[]string{"LMPOP", "2", "a", "b", "LEFT"},
		[]string{"LMPOP", "2", "a", "b", "RIGHT", "COUNT", "2"},
		[]string{"LMPOP", "1", "b", "left", "count", "10"},
		[]string{"EXISTS", "b"},
		[]string{"RPUSH", "a", "x"},
		[]string{"RPUSH", "b", "y"},
		[]string{"LMPOP", "2", "a", "b", "LEFT", "COUNT", "5"},
		[]string{"LMPOP", "2", "a", "b", "LEFT", "COUNT", "5"},
		[]string{"LMPOP", "0", "a", "LEFT"},
		[]string{"LMPOP", "-1", "a", "LEFT"},
		[]string{"LMPOP", "x", "a", "LEFT"},
		[]string{"LMPOP", "3", "a", "LEFT"},
		[]string{"LMPOP", "2", "a", "LEFT"},
		[]string{"LMPOP", "1", "a", "MIDDLE"},
		[]string{"LMPOP", "1", "a", "LEFT", "COUNT"},
		[]string{"LMPOP", "1", "a", "LEFT", "COUNT", "0"},
		[]string{"LMPOP", "1", "a", "LEFT", "COUNT", "-1"},
		[]string{"LMPOP", "1", "a", "LEFT", "COUNT", "x"},
		[]string{"LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"},
		[]string{"LMPOP", "1", "a", "LEFT", "FOO"},
		[]string{"LMPOP", "1", "a"},
		[]string{"LMPOP", "9223372036854775807", "a", "LEFT"},
		[]string{"SET", "s", "v"},
		[]string{"LMPOP", "2", "nokey", "s", "LEFT"},
		[]string{"RPUSH", "c", "z"},
		[]string{"LMPOP", "2", "c", "s", "LEFT"},
		[]string{"LMPOP", "2", "s", "c", "LEFT"},
		[]string{"COMMAND", "GETKEYS", "LMPOP", "2", "a", "b", "LEFT"},
		[]string{"COMMAND", "GETKEYS", "BLMPOP", "0", "2", "a", "b", "LEFT", "COUNT", "3"},
	)
}

func TestListRESP3(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	listDo(p,
		[]string{"LPOP", "nokey"},
		[]string{"LPOP", "nokey", "1"},
		[]string{"LPOP", "nokey", "0"},
		[]string{"RPOP", "nokey", "2"},
		[]string{"LINDEX", "nokey", "0"},
		[]string{"LPOS", "nokey", "a"},
		[]string{"LPOS", "nokey", "a", "COUNT", "0"},
		[]string{"LMOVE", "nokey", "x", "LEFT", "LEFT"},
		[]string{"RPOPLPUSH", "nokey", "x"},
		[]string{"LMPOP", "1", "nokey", "LEFT"},
		[]string{"RPUSH", "l", "a", "b", "c"},
		[]string{"LPOP", "l", "2"},
		[]string{"LRANGE", "l", "0", "-1"},
		[]string{"LINDEX", "l", "5"},
		[]string{"LPOS", "l", "zz"},
		[]string{"LMPOP", "1", "l", "RIGHT"},
		[]string{"BLPOP", "nokey", "0.01"},
		[]string{"BLMOVE", "nokey", "x", "LEFT", "LEFT", "0.01"},
		[]string{"BLMPOP", "0.01", "1", "nokey", "LEFT"},
	)
}

func TestListCommandInfo(t *testing.T) {
	p := NewPair(t)
	for _, c := range []string{"lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen", "lindex",
		"lrange", "lset", "lrem", "ltrim", "linsert", "lpos", "blpop", "brpop"} {
		p.Do("COMMAND", "INFO", c)
	}
	// Two keys with different key-spec flags, or keynum key specs: the
	// command table cannot express those, so compare name, arity, flags, key
	// range and ACL categories.
	for _, c := range []string{"lmove", "rpoplpush", "lmpop", "blmove", "brpoplpush", "blmpop"} {
		lv, rv := p.both([]string{"COMMAND", "INFO", c})
		head := func(v Value) Value {
			if len(v.Elems) == 1 && len(v.Elems[0].Elems) >= 7 {
				return Value{Kind: '*', Elems: v.Elems[0].Elems[:7]}
			}
			return v
		}
		p.check([]string{"COMMAND", "INFO", c}, head(lv), head(rv), Equal(head(lv), head(rv)))
	}
	for _, c := range [][]string{
		{"COMMAND", "GETKEYS", "LMPOP", "0", "a", "LEFT"},
		{"COMMAND", "GETKEYS", "LMPOP", "3", "a", "LEFT"},
		{"COMMAND", "GETKEYS", "LMPOP", "x", "a", "LEFT"},
		{"COMMAND", "GETKEYS", "BLMPOP", "0", "5", "a", "LEFT"},
		{"COMMAND", "GETKEYS", "BLPOP", "a", "b", "0"},
		{"COMMAND", "GETKEYS", "BLMOVE", "a", "b", "LEFT", "LEFT", "0"},
		{"COMMAND", "GETKEYSANDFLAGS", "LPUSH", "a", "v"},
		{"COMMAND", "GETKEYSANDFLAGS", "BLMPOP", "0", "2", "a", "b", "LEFT"},
	} {
		p.Do(c...)
	}
}

func TestListExpiredKey(t *testing.T) {
	p := NewPair(t)
	listDo(p,
		[]string{"RPUSH", "l", "a", "b"},
		[]string{"PEXPIRE", "l", "1"},
	)
	p.waitExpired("l")
	listDo(p,
		[]string{"LLEN", "l"},
		[]string{"RPUSHX", "l", "c"},
		[]string{"LPUSH", "l", "c"},
		[]string{"TTL", "l"},
		[]string{"LRANGE", "l", "0", "-1"},
	)
}

func TestListNotifications(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEAn")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*@*__:*")
	for _, cmd := range [][]string{
		{"RPUSH", "l", "a", "b", "c", "d", "e", "f"}, {"LPUSH", "l", "z"}, {"LPUSHX", "l", "y"},
		{"RPUSHX", "l", "x"}, {"LPUSHX", "nokey", "a"}, {"LPOP", "l"}, {"RPOP", "l", "2"},
		{"LPOP", "l", "0"}, {"LSET", "l", "0", "q"}, {"LSET", "l", "100", "q"}, {"LREM", "l", "0", "nope"},
		{"LREM", "l", "1", "q"}, {"LINSERT", "l", "BEFORE", "c", "k"}, {"LINSERT", "l", "BEFORE", "nope", "k"},
		{"LTRIM", "l", "0", "-1"}, {"LTRIM", "l", "1", "-1"}, {"LMOVE", "l", "m", "LEFT", "RIGHT"},
		{"RPOPLPUSH", "l", "l"}, {"LMPOP", "2", "nokey", "l", "RIGHT", "COUNT", "2"},
		{"LPOS", "l", "b"}, {"LRANGE", "l", "0", "-1"}, {"LTRIM", "l", "5", "1"},
		{"RPUSH", "one", "v"}, {"LMOVE", "one", "one", "LEFT", "RIGHT"}, {"RPOPLPUSH", "one", "two"},
		{"RPUSH", "r", "v"}, {"LREM", "r", "0", "v"}, {"RPUSH", "r", "v"}, {"LPOP", "r"},
		{"RPUSH", "r", "v"}, {"BLPOP", "r", "0"}, {"RPUSH", "r", "v", "w"}, {"BLMOVE", "r", "r2", "LEFT", "RIGHT", "0"},
		{"BRPOPLPUSH", "r", "r2", "0"}, {"BLMPOP", "0", "1", "r2", "LEFT", "COUNT", "5"},
	} {
		p.Do(cmd...)
		listFenceEvents(t, sub)
	}
	// Events of served blocked clients follow the push that woke them.
	waitBlocked(t, 0)
	for _, blk := range [][]string{
		{"BLPOP", "w", "0"}, {"BRPOP", "w", "0"}, {"BLMOVE", "w", "w2", "RIGHT", "LEFT", "0"},
		{"BRPOPLPUSH", "w", "w", "0"}, {"BLMPOP", "0", "1", "w", "LEFT", "COUNT", "3"},
	} {
		a := blockOn(t, 1, blk...)
		p.Do("RPUSH", "w", "1", "2")
		a.Receive()
		listFenceEvents(t, sub)
		p.Do("DEL", "w", "w2")
		listFenceEvents(t, sub)
		waitBlocked(t, 0)
	}
}

// TestListRandomized drives both servers with the same random stream of
// list commands (fixed seed) over a few keys and small values, so pops,
// inserts, removals and moves meet each other's edge cases.
func TestListRandomized(t *testing.T) {
	p := NewPair(t)
	rnd := rand.New(rand.NewPCG(7, 2026))
	keys := []string{"a", "b", "c"}
	key := func() string { return keys[rnd.IntN(len(keys))] }
	val := func() string { return strconv.Itoa(rnd.IntN(6)) }
	idx := func() string { return strconv.Itoa(rnd.IntN(14) - 7) }
	side := func() string {
		if rnd.IntN(2) == 0 {
			return "LEFT"
		}
		return "RIGHT"
	}
	for i := 0; i < 1500; i++ {
		var cmd []string
		switch rnd.IntN(16) {
		case 0, 1:
			cmd = []string{"LPUSH", key(), val(), val()}
		case 2, 3:
			cmd = []string{"RPUSH", key(), val()}
		case 4:
			cmd = []string{"LPOP", key()}
			if rnd.IntN(2) == 0 {
				cmd = append(cmd, strconv.Itoa(rnd.IntN(4)))
			}
		case 5:
			cmd = []string{"RPOP", key(), strconv.Itoa(rnd.IntN(4))}
		case 6:
			cmd = []string{"LRANGE", key(), idx(), idx()}
		case 7:
			where := "BEFORE"
			if rnd.IntN(2) == 0 {
				where = "AFTER"
			}
			cmd = []string{"LINSERT", key(), where, val(), val()}
		case 8:
			cmd = []string{"LREM", key(), idx(), val()}
		case 9:
			cmd = []string{"LTRIM", key(), idx(), idx()}
		case 10:
			cmd = []string{"LSET", key(), idx(), val()}
		case 11:
			cmd = []string{"LPOS", key(), val(), "RANK", []string{"1", "2", "-1", "-2"}[rnd.IntN(4)], "COUNT", strconv.Itoa(rnd.IntN(3)), "MAXLEN", strconv.Itoa(rnd.IntN(5))}
		case 12:
			cmd = []string{"LMOVE", key(), key(), side(), side()}
		case 13:
			cmd = []string{"LMPOP", "2", key(), key(), side(), "COUNT", strconv.Itoa(1 + rnd.IntN(3))}
		case 14:
			cmd = []string{"LINDEX", key(), idx()}
		case 15:
			cmd = []string{"RPOPLPUSH", key(), key()}
		}
		p.Do(cmd...)
		if i%50 == 0 {
			for _, k := range keys {
				p.Do("LRANGE", k, "0", "-1")
			}
		}
	}
}

func TestListArity(t *testing.T) {
	p := NewPair(t)
	for _, cmd := range [][]string{
		{"LPUSH"}, {"LPUSH", "k"}, {"RPUSHX", "k"}, {"LPOP"}, {"RPOP", "k", "1", "2"},
		{"LLEN"}, {"LLEN", "k", "k"}, {"LINDEX", "k"}, {"LINDEX", "k", "0", "1"},
		{"LRANGE", "k", "0"}, {"LSET", "k", "0"}, {"LREM", "k", "0"}, {"LTRIM", "k", "0"},
		{"LINSERT", "k", "BEFORE", "a"}, {"LINSERT", "k", "BEFORE", "a", "b", "c"},
		{"LPOS", "k"}, {"LMOVE", "a", "b", "LEFT"}, {"RPOPLPUSH", "a"}, {"RPOPLPUSH", "a", "b", "c"},
		{"LMPOP", "1", "k"}, {"BLPOP", "k"}, {"BRPOP"}, {"BLMOVE", "a", "b", "LEFT", "LEFT"},
		{"BRPOPLPUSH", "a", "b"}, {"BLMPOP", "0", "1", "k"},
	} {
		p.Do(cmd...)
	}
	// Binary-safe elements and pivots.
	listDo(p,
		[]string{"RPUSH", "bin", "", "\x00", "a\r\nb", "\xff"},
		[]string{"LINSERT", "bin", "AFTER", "", "empty-next"},
		[]string{"LINSERT", "bin", "BEFORE", "\x00", "nul-prev"},
		[]string{"LPOS", "bin", "a\r\nb"},
		[]string{"LREM", "bin", "0", "\xff"},
		[]string{"LRANGE", "bin", "0", "-1"},
	)
}

// listFenceEvents reads the events sub received up to the reply of a PING
// sent now (a fence: every event of the commands already answered comes
// before it) on both servers and requires the same sequence.
func listFenceEvents(t *testing.T, sub *Pair) {
	t.Helper()
	sub.Send("PING")
	read := func(c *Conn) []Value {
		var out []Value
		for {
			v, err := c.Read(5 * time.Second)
			if err != nil {
				t.Fatalf("%s: %v", c.Addr, err)
			}
			if len(v.Elems) > 0 && v.Elems[0].Str == "pong" {
				return out
			}
			out = append(out, v)
		}
	}
	rv, lv := read(sub.R), read(sub.L)
	for i := range rv {
		if i >= len(lv) {
			sub.check("event", Value{Kind: '-', Str: "missing"}, rv[i], false)
			continue
		}
		sub.check("event", lv[i], rv[i], Equal(lv[i], rv[i]))
	}
	for i := len(rv); i < len(lv); i++ {
		sub.check("event", lv[i], Value{Kind: '-', Str: "none"}, false)
	}
}
