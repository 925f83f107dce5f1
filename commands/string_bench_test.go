package commands

import (
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// BenchmarkStringSetGet overwrites and reads keys of a 100,000-key
// keyspace with 32-byte values: one SET and one GET per op.
func BenchmarkStringSetGet(b *testing.B) {
	e := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.UnixMilli(1_000_000)}}).E
	cl := e.NewClient(nil)
	cl.Authenticated = true
	keys := make([][]byte, 100000)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
	}
	val := []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
	ctx := engine.Ctx{E: e, C: cl, W: &cl.W, DB: e.DBs[0], Now: 1}
	set := [][]byte{[]byte("SET"), nil, val}
	get := [][]byte{[]byte("GET"), nil}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cl.W.Reset()
		set[1] = keys[i%len(keys)]
		engine.Exec(&ctx, set)
		get[1] = keys[(i*7)%len(keys)]
		engine.Exec(&ctx, get)
	}
}
