package engine_test

import (
	"testing"

	"github.com/lockkv/lockkv/engine/enginetest"
)

// TestPrefetchAlone: a pipeline that runs by itself leaves nothing in the
// prefetch queue, whatever its length (keys queued would be touched after
// their commands ran, and keep the buffer they point into).
func TestPrefetchAlone(t *testing.T) {
	te := enginetest.New(t)
	cl, _ := te.Client()
	for _, n := range []int{1, 3, 4, 100} {
		var cmds [][][]byte
		for i := 0; i < n; i++ {
			cmds = append(cmds, [][]byte{[]byte("GET"), []byte("k")})
		}
		te.E.PrefetchAlone(cl, cmds)
		if q := te.E.PrefetchQueued(); q != 0 {
			t.Errorf("a lone pipeline of %d: %d keys left queued", n, q)
		}
	}
}
