package engine_test

import (
	"strconv"
	"testing"
)

func BenchmarkListPushPop(b *testing.B) {
	e, cl := benchEngine(b)
	benchRun(b, e, cl, argv("RPUSH", "q", "job-payload-1234"), argv("LPOP", "q"))
}

func BenchmarkListLRANGE600(b *testing.B) {
	e, cl := benchEngine(b)
	args := []string{"RPUSH", "l"}
	for i := 0; i < 600; i++ {
		args = append(args, "xxx"+strconv.Itoa(i))
	}
	e.Call(cl, argv(args...))
	benchRun(b, e, cl, argv("LRANGE", "l", "0", "599"))
}

// BenchmarkListBlockServe measures a client blocking in BLPOP and being
// served by another client's push.
func BenchmarkListBlockServe(b *testing.B) {
	e, cl := benchEngine(b)
	pusher := e.NewClient(nil)
	blpop, rpush := argv("BLPOP", "q", "0"), argv("RPUSH", "q", "v")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Call(cl, blpop)
		e.Call(pusher, rpush)
		e.ResumeUnblockedForTest()
		cl.W.Reset()
		pusher.W.Reset()
	}
	if cl.IsBlocked() {
		b.Fatal("still blocked")
	}
}
