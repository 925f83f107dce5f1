package conformance

import "testing"

func TestSortBasics(t *testing.T) {
	p := NewPair(t)
	p.Do("SORT", "nosuch")
	p.Do("SORT", "nosuch", "STORE", "dst")
	p.Do("EXISTS", "dst")
	p.Do("RPUSH", "l", "3", "1", "2", "10", "-5", "2.5")
	p.Do("SORT", "l")
	p.Do("SORT", "l", "DESC")
	p.Do("SORT", "l", "ALPHA")
	p.Do("SORT", "l", "ALPHA", "DESC")
	p.Do("SORT", "l", "LIMIT", "1", "2")
	p.Do("SORT", "l", "LIMIT", "-1", "2")
	p.Do("SORT", "l", "LIMIT", "0", "-1")
	p.Do("SORT", "l", "LIMIT", "4", "100")
	p.Do("SORT", "l", "LIMIT", "6", "1")
	p.Do("SORT", "l", "LIMIT", "100", "1")
	p.Do("SORT", "l", "LIMIT", "0", "0")
	p.Do("SORT", "l", "LIMIT", "x", "1")
	p.Do("SORT", "l", "LIMIT", "1")
	p.Do("SORT", "l", "FOO")
	p.Do("SORT", "l", "STORE")
	p.Do("SORT", "l", "BY")
	p.Do("SORT", "l", "GET")
	p.Do("SORT", "l", "asc", "desc", "ASC")
	p.Do("SORT", "l", "BY", "nosort")
	p.Do("SORT", "l", "BY", "nosort", "DESC")
	p.Do("SORT", "l", "BY", "nosort", "LIMIT", "1", "3")
	p.Do("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "3")
	p.Do("SORT", "l", "BY", "nosort", "LIMIT", "10", "3")
	p.Do("SORT", "l", "STORE", "dst")
	p.Do("LRANGE", "dst", "0", "-1")
	p.Do("TYPE", "dst")
	p.Do("SORT", "l", "LIMIT", "0", "0", "STORE", "dst")
	p.Do("EXISTS", "dst")
	p.Do("SORT_RO", "l")
	p.Do("SORT_RO", "l", "STORE", "dst")
	p.Do("SORT_RO", "l", "DESC", "LIMIT", "0", "2")
	p.Do("RPUSH", "words", "banana", "apple", "Cherry", "apple2", "")
	p.Do("SORT", "words")
	p.Do("SORT", "words", "ALPHA")
	p.Do("SORT", "words", "ALPHA", "STORE", "wd")
	p.Do("LRANGE", "wd", "0", "-1")
	p.Do("SET", "str", "x")
	p.Do("SORT", "str")
	p.Do("SORT", "str", "FOO")
	p.Do("HSET", "h", "f", "v")
	p.Do("SORT", "h")
	p.Do("SORT")
	p.Do("SORT_RO")
}

func TestSortNumericConversion(t *testing.T) {
	p := NewPair(t)
	p.Do("RPUSH", "n", "1", " 2", "0x10", "1e3", "-inf", "+inf", "", "1.5", "-0", "3.")
	p.Do("SORT", "n")
	p.Do("SORT", "n", "DESC")
	for _, bad := range []string{"abc", "1 ", "nan", "1e400", "1e-400", "1e-310", "--1", "1e", "0x", "1_0"} {
		p.Do("DEL", "b")
		p.Do("RPUSH", "b", "1", bad)
		p.Do("SORT", "b")
	}
}

func TestSortByGet(t *testing.T) {
	p := NewPair(t)
	p.Do("RPUSH", "ids", "1", "2", "3", "4")
	p.Do("MSET", "w_1", "30", "w_2", "10", "w_3", "20", "obj_1", "one", "obj_2", "two", "obj_3", "three")
	p.Do("HSET", "h_1", "f", "c", "n", "3")
	p.Do("HSET", "h_2", "f", "a", "n", "1")
	p.Do("HSET", "h_4", "f", "b")
	p.Do("SORT", "ids", "BY", "w_*")
	p.Do("SORT", "ids", "BY", "w_*", "DESC")
	p.Do("SORT", "ids", "BY", "w_*", "GET", "obj_*")
	p.Do("SORT", "ids", "BY", "w_*", "GET", "#", "GET", "obj_*", "GET", "h_*->f", "GET", "nofield")
	p.Do("SORT", "ids", "BY", "h_*->n")
	p.Do("SORT", "ids", "BY", "h_*->f", "ALPHA")
	p.Do("SORT", "ids", "BY", "h_*->f", "ALPHA", "DESC")
	p.Do("SORT", "ids", "BY", "obj_*", "ALPHA")
	p.Do("SORT", "ids", "BY", "obj_*", "ALPHA", "STORE", "out")
	p.Do("LRANGE", "out", "0", "-1")
	p.Do("SORT", "ids", "BY", "obj_*")
	p.Do("SORT", "ids", "GET", "obj_*", "STORE", "out")
	p.Do("LRANGE", "out", "0", "-1")
	p.Do("SORT", "ids", "GET", "h_*->")
	p.Do("SORT", "ids", "GET", "h_*->f->x")
	p.Do("SORT", "ids", "BY", "w_*", "LIMIT", "1", "2", "GET", "obj_*")
	p.Do("SORT", "ids", "BY", "nosort", "GET", "obj_*")
	p.Do("SORT", "ids", "BY", "w_*", "GET", "#", "LIMIT", "0", "1")
	p.Do("SORT", "ids", "BY", "h_*->f")
	p.Do("SET", "w_4", "abc")
	p.Do("SORT", "ids", "BY", "w_*")
	p.Do("SORT", "ids", "BY", "w_*", "ALPHA")
	p.Do("RPUSH", "wt", "x")
	p.Do("SORT", "ids", "GET", "wt*")
	p.Do("SORT", "ids", "GET", "w_*", "GET", "#")
}

func TestSortSetsZsets(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "s", "5", "3", "10", "1")
	p.Do("SORT", "s")
	p.Do("SORT", "s", "DESC", "LIMIT", "1", "2")
	p.Do("SORT", "s", "BY", "nosort")
	p.Do("SORT", "s", "BY", "nosort", "STORE", "o")
	p.Do("LRANGE", "o", "0", "-1")
	p.Do("SADD", "sw", "pear", "fig", "kiwi", "apple", "plum")
	p.Do("SORT", "sw", "ALPHA")
	p.Do("SORT", "sw", "ALPHA", "DESC", "LIMIT", "0", "3")
	p.DoSorted("SORT", "sw", "BY", "nosort")
	p.Do("SORT", "sw", "BY", "nosort", "STORE", "o")
	p.Do("LRANGE", "o", "0", "-1")
	p.Do("SORT", "sw")
	p.Do("ZADD", "z", "3", "c", "1", "a", "2", "b", "5", "e")
	p.Do("OBJECT", "ENCODING", "z")
	p.Do("SORT", "z", "ALPHA")
	p.Do("OBJECT", "ENCODING", "z")
	p.Do("SORT", "z", "BY", "nosort")
	p.Do("SORT", "z", "BY", "nosort", "DESC")
	p.Do("SORT", "z", "BY", "nosort", "LIMIT", "1", "2")
	p.Do("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "2")
	p.Do("SORT", "z", "BY", "nosort", "LIMIT", "10", "2")
	p.Do("SORT", "z")
	p.Do("ZADD", "zn", "3", "30", "1", "10", "2", "20")
	p.Do("SORT", "zn")
	p.Do("SORT", "zn", "BY", "nosort", "GET", "#")
}

// TestKeysStringsCommandInfo compares COMMAND INFO (name, arity, flags,
// key range, ACL categories) for the key, string, bitmap and SORT commands.
func TestKeysStringsCommandInfo(t *testing.T) {
	p := NewPair(t)
	for _, c := range []string{"del", "unlink", "exists", "type", "keys", "scan", "rename", "renamenx",
		"move", "copy", "dbsize", "flushdb", "flushall", "swapdb", "randomkey", "expire", "pexpire",
		"expireat", "pexpireat", "ttl", "pttl", "expiretime", "pexpiretime", "persist", "touch",
		"get", "set", "setnx", "setex", "psetex", "getset", "getdel", "getex", "mget", "mset", "msetnx",
		"incr", "decr", "incrby", "decrby", "incrbyfloat", "append", "strlen", "getrange", "substr",
		"setrange", "lcs", "getbit", "setbit", "bitcount", "bitpos", "bitop", "bitfield", "bitfield_ro",
		"sort", "sort_ro"} {
		lv, rv := p.both([]string{"COMMAND", "INFO", c})
		head := func(v Value) Value {
			if len(v.Elems) == 1 && len(v.Elems[0].Elems) >= 7 {
				return Value{Kind: '*', Elems: v.Elems[0].Elems[:7]}
			}
			return v
		}
		p.check([]string{"COMMAND", "INFO", c}, head(lv), head(rv), Equal(head(lv), head(rv)))
	}
	for _, args := range [][]string{
		{"sort", "k"}, {"sort", "k", "STORE", "d"}, {"sort", "k", "STORE", "d", "STORE", "e"},
		{"sort", "k", "LIMIT", "0", "1", "STORE", "d"}, {"sort", "k", "GET", "store", "BY", "x"},
		{"sort", "k", "STORE"}, {"sort_ro", "k", "BY", "x"}, {"mset", "a", "1", "b", "2"},
		{"lcs", "a", "b"}, {"bitop", "and", "d", "a", "b"}, {"copy", "a", "b"}, {"rename", "a", "b"},
	} {
		p.Do(append([]string{"COMMAND", "GETKEYS"}, args...)...)
	}
}
