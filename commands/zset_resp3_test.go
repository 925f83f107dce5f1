package commands

import (
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// TestZsetRESP3Replies checks RESP3 reply shapes byte for byte against
// replies captured from redis-server 7.0.15 after HELLO 3 (the parity
// suite compares them live once HELLO is on main).
func TestZsetRESP3Replies(t *testing.T) {
	e := enginetest.NewWith(t, engine.Options{Clock: &enginetest.Clock{T: time.Unix(1700000000, 0)}}).E
	cl := e.NewClient(nil)
	cl.W.Proto = 3
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ZADD", "z", "1.1", "a", "2", "b", "3", "c", "4", "d", "-0", "e", "inf", "f"}, ":6\r\n"},
		{[]string{"ZADD", "z", "INCR", "1", "a"}, ",2.1000000000000001\r\n"},
		{[]string{"ZADD", "z", "NX", "INCR", "1", "a"}, "_\r\n"},
		{[]string{"ZINCRBY", "z", "1", "b"}, ",3\r\n"},
		{[]string{"ZSCORE", "z", "a"}, ",2.1000000000000001\r\n"},
		{[]string{"ZSCORE", "z", "x"}, "_\r\n"},
		{[]string{"ZSCORE", "nokey", "x"}, "_\r\n"},
		{[]string{"ZMSCORE", "z", "a", "x", "f"}, "*3\r\n,2.1000000000000001\r\n_\r\n,inf\r\n"},
		{[]string{"ZRANK", "z", "x"}, "_\r\n"},
		{[]string{"ZRANK", "z", "a"}, ":1\r\n"},
		{[]string{"ZRANK", "nokey", "x"}, "_\r\n"},
		{[]string{"ZRANGE", "z", "0", "-1"}, "*6\r\n$1\r\ne\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\nf\r\n"},
		{[]string{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, "*6\r\n*2\r\n$1\r\ne\r\n,0\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n*2\r\n$1\r\nb\r\n,3\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nd\r\n,4\r\n*2\r\n$1\r\nf\r\n,inf\r\n"},
		{[]string{"ZRANGE", "z", "0", "-1", "REV", "WITHSCORES"}, "*6\r\n*2\r\n$1\r\nf\r\n,inf\r\n*2\r\n$1\r\nd\r\n,4\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nb\r\n,3\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n*2\r\n$1\r\ne\r\n,0\r\n"},
		{[]string{"ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2"}, "*2\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n*2\r\n$1\r\nb\r\n,3\r\n"},
		{[]string{"ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES"}, "*6\r\n*2\r\n$1\r\nf\r\n,inf\r\n*2\r\n$1\r\nd\r\n,4\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nb\r\n,3\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n*2\r\n$1\r\ne\r\n,0\r\n"},
		{[]string{"ZREVRANGE", "z", "0", "1", "WITHSCORES"}, "*2\r\n*2\r\n$1\r\nf\r\n,inf\r\n*2\r\n$1\r\nd\r\n,4\r\n"},
		{[]string{"ZRANGE", "nokey", "0", "-1", "WITHSCORES"}, "*0\r\n"},
		{[]string{"ZRANGEBYLEX", "z", "-", "+"}, "*6\r\n$1\r\ne\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\nf\r\n"},
		{[]string{"ZSCAN", "z", "0"}, "*2\r\n$1\r\n0\r\n*12\r\n$1\r\ne\r\n$1\r\n0\r\n$1\r\na\r\n$18\r\n2.1000000000000001\r\n$1\r\nb\r\n$1\r\n3\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n$1\r\n4\r\n$1\r\nf\r\n$3\r\ninf\r\n"},
		{[]string{"ZRANDMEMBER", "z", "100", "WITHSCORES"}, "*6\r\n*2\r\n$1\r\nf\r\n,inf\r\n*2\r\n$1\r\nd\r\n,4\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nb\r\n,3\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n*2\r\n$1\r\ne\r\n,0\r\n"},
		{[]string{"ZRANDMEMBER", "z", "0", "WITHSCORES"}, "*0\r\n"},
		{[]string{"ZRANDMEMBER", "nokey"}, "_\r\n"},
		{[]string{"ZUNION", "1", "z", "WITHSCORES"}, "*6\r\n*2\r\n$1\r\ne\r\n,0\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n*2\r\n$1\r\nb\r\n,3\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nd\r\n,4\r\n*2\r\n$1\r\nf\r\n,inf\r\n"},
		{[]string{"ZINTER", "1", "z"}, "*6\r\n$1\r\ne\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\nf\r\n"},
		{[]string{"ZPOPMIN", "z"}, "*2\r\n$1\r\ne\r\n,0\r\n"},
		{[]string{"ZPOPMIN", "z", "1"}, "*1\r\n*2\r\n$1\r\na\r\n,2.1000000000000001\r\n"},
		{[]string{"ZPOPMAX", "z", "0"}, "*0\r\n"},
		{[]string{"ZPOPMAX", "z", "2"}, "*2\r\n*2\r\n$1\r\nf\r\n,inf\r\n*2\r\n$1\r\nd\r\n,4\r\n"},
		{[]string{"ZPOPMIN", "nokey"}, "*0\r\n"},
		{[]string{"ZPOPMIN", "nokey", "2"}, "*0\r\n"},
		{[]string{"ZMPOP", "1", "z", "MAX", "COUNT", "2"}, "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nc\r\n,3\r\n*2\r\n$1\r\nb\r\n,3\r\n"},
		{[]string{"ZMPOP", "1", "nokey", "MAX"}, "_\r\n"},
		{[]string{"ZADD", "y", "1", "a"}, ":1\r\n"},
		{[]string{"ZINCRBY", "y", "-inf", "a"}, ",-inf\r\n"},
		{[]string{"ZSCORE", "y", "a"}, ",-inf\r\n"},
	} {
		args := make([][]byte, len(c.args))
		for i, a := range c.args {
			args[i] = []byte(a)
		}
		cl.W.Reset()
		e.Call(cl, args)
		if got := string(cl.W.B); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}
