package lockkv_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
)

// commandFamilies are the commands of a standalone server, by the package
// that registers them: the engine's own, and the families this package
// imports for their init functions (families.go).
var commandFamilies = map[string]string{
	"engine": "auth bgsave client discard echo eval eval_ro evalsha evalsha_ro exec fcall fcall_ro function " +
		"hello latency migrate monitor multi ping psubscribe publish pubsub punsubscribe quit reset save script " +
		"select slowlog spublish ssubscribe subscribe sunsubscribe unsubscribe unwatch wait waitaof watch",
	"admin": "asking cluster command config debug info lastsave memory readonly readwrite role shutdown time",
	"commands": "append bitcount bitfield bitfield_ro bitop bitpos blmove blmpop blpop brpop brpoplpush bzmpop " +
		"bzpopmax bzpopmin copy dbsize decr decrby del dump exists expire expireat expiretime flushall flushdb get " +
		"getbit getdel getex getrange getset hdel hexists hget hgetall hincrby hincrbyfloat hkeys hlen hmget hmset " +
		"hrandfield hscan hset hsetnx hstrlen hvals incr incrby incrbyfloat keys lcs lindex linsert llen lmove lmpop " +
		"lockkv.locks lpop lpos lpush lpushx lrange lrem lset ltrim mget move mset msetnx object persist pexpire " +
		"pexpireat pexpiretime psetex pttl randomkey rename renamenx restore rpop rpoplpush rpush rpushx sadd scan " +
		"scard sdiff sdiffstore set setbit setex setnx setrange sinter sintercard sinterstore sismember smembers " +
		"smismember smove sort sort_ro spop srandmember srem sscan strlen substr sunion sunionstore swapdb touch " +
		"ttl type unlink zadd zcard zcount zdiff zdiffstore zincrby zinter zintercard zinterstore zlexcount zmpop " +
		"zmscore zpopmax zpopmin zrandmember zrange zrangebylex zrangebyscore zrangestore zrank zrem " +
		"zremrangebylex zremrangebyrank zremrangebyscore zrevrange zrevrangebylex zrevrangebyscore zrevrank zscan " +
		"zscore zunion zunionstore",
}

// TestCommandFamilies: a server answers COMMAND COUNT and COMMAND LIST
// with every family's commands, so a family missing from the build (a
// package not imported for its registrations) fails here by name.
func TestCommandFamilies(t *testing.T) {
	srv := lockkv.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	var want []string
	for _, names := range commandFamilies {
		want = append(want, strings.Fields(names)...)
	}
	n, err := rdb.Do(ctx, "COMMAND", "COUNT").Int()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("COMMAND COUNT = %d, want %d", n, len(want))
	}
	got, err := rdb.Do(ctx, "COMMAND", "LIST").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	for family, names := range commandFamilies {
		for _, name := range strings.Fields(names) {
			if !slices.Contains(got, name) {
				t.Errorf("COMMAND LIST lacks %s (package %s)", name, family)
			}
		}
	}
}
