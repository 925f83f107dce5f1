package lockkv

import (
	"context"
	"testing"
	"time"
)

// TestClusterSurvivesUndecodableEntry: a log entry no node can decode is
// skipped by every node (the Raft future answers an error) and the cluster
// goes on serving.
func TestClusterSurvivesUndecodableEntry(t *testing.T) {
	tc := startCluster(t, 3)
	l := tc.leader()
	ctx := context.Background()
	c := tc.client(l)
	if err := c.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, garbage := range [][]byte{nil, {0xff}, {1, 2, 3}, append([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)} {
		f := tc.srvs[l].Node().Raft().Apply(garbage, 5*time.Second)
		if err := f.Error(); err != nil {
			t.Fatalf("raft: %v", err)
		}
		if _, ok := f.Response().(error); !ok {
			t.Fatalf("%x: response %v, want the decoding error", garbage, f.Response())
		}
	}
	if err := c.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for i := range tc.srvs {
		waitFor(t, "the write after the garbage on every node", func() bool { return tc.has(i, "after") && tc.has(i, "before") })
	}
}
