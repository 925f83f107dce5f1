package commands

import (
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// BenchmarkZAddZRangeByScore measures the lock-queue pattern on 1k-member
// sets: update one member's deadline, then read the members due by now.
func BenchmarkZAddZRangeByScore(b *testing.B) {
	e := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.Unix(1700000000, 0)}}).E
	cl := e.NewClient(nil)
	const n = 1000
	for i := 0; i < n; i++ {
		e.Call(cl, [][]byte{[]byte("ZADD"), []byte("q"), []byte(strconv.Itoa(1700000000000 + i*10)), []byte("member:" + strconv.Itoa(i))})
	}
	cl.W.Reset()
	zadd := [][]byte{[]byte("ZADD"), []byte("q"), nil, nil}
	zr := [][]byte{[]byte("ZRANGEBYSCORE"), []byte("q"), []byte("-inf"), nil, []byte("LIMIT"), []byte("0"), []byte("10")}
	members := make([][]byte, n)
	for i := range members {
		members[i] = []byte("member:" + strconv.Itoa(i))
	}
	var sbuf, mbuf [24]byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % n
		zadd[2] = strconv.AppendInt(sbuf[:0], 1700000000000+int64((i*7919)%(n*10)), 10)
		zadd[3] = members[k]
		e.Call(cl, zadd)
		zr[3] = strconv.AppendInt(mbuf[:0], 1700000000000+int64((i*31)%(n*10)), 10)
		e.Call(cl, zr)
		cl.W.Reset()
	}
}

// BenchmarkZScoreZRank measures point reads on a 1k-member set.
func BenchmarkZScoreZRank(b *testing.B) {
	e := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.Unix(1700000000, 0)}}).E
	cl := e.NewClient(nil)
	const n = 1000
	for i := 0; i < n; i++ {
		e.Call(cl, [][]byte{[]byte("ZADD"), []byte("q"), []byte(strconv.Itoa(i)), []byte("member:" + strconv.Itoa(i))})
	}
	cl.W.Reset()
	zs := [][]byte{[]byte("ZSCORE"), []byte("q"), []byte("member:500")}
	zk := [][]byte{[]byte("ZRANK"), []byte("q"), []byte("member:500")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Call(cl, zs)
		e.Call(cl, zk)
		cl.W.Reset()
	}
}
