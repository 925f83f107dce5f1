package lockkv

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/store"
)

// A backup of a cluster is SAVE on any member: an RDB file of that
// member's applied state, at the index its lockkv-raft-applied-index
// field names. A new cluster started from it (LoadRDB on its nodes)
// holds the same keys, under a cluster identity of its own.

func digests(tc *testCluster) []string {
	out := make([]string, len(tc.srvs))
	for i, s := range tc.srvs {
		s.Do(func(e *engine.Engine) { out[i] = e.Digest() })
	}
	return out
}

func allSame(ds []string) bool {
	for _, d := range ds {
		if d != ds[0] {
			return false
		}
	}
	return true
}

func TestClusterBackupRestore(t *testing.T) {
	dirs := map[string]string{}
	tc := startClusterCfg(t, 3, func(c *Config) {
		d := t.TempDir()
		dirs[rc(c).NodeID] = d
		c.Settings = append(c.Settings, Setting{Name: "dir", Args: []string{d}})
	})
	ctx := context.Background()
	l := tc.leader()
	f := (l + 1) % 3
	lc := tc.client(l)
	if err := lc.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	lc.HSet(ctx, "lock", "uuid:1", "1")
	lc.PExpire(ctx, "lock", 30*time.Second)
	lc.ZAdd(ctx, "z")
	payload, err := lc.Dump(ctx, "lock").Result()
	if err != nil {
		t.Fatal(err)
	}
	// RESTORE is a write: a relative TTL becomes the same deadline on
	// every node (the entry's time), an absolute one is taken as is.
	if err := lc.Restore(ctx, "lock2", 50*time.Second, payload).Err(); err != nil {
		t.Fatal(err)
	}
	abs := time.Now().Add(time.Hour).UnixMilli()
	if err := lc.Do(ctx, "RESTORE", "lock3", strconv.FormatInt(abs, 10), payload, "ABSTTL").Err(); err != nil {
		t.Fatal(err)
	}
	if err := lc.Do(ctx, "RESTORE", "gone", "1", payload, "ABSTTL").Err(); err != nil {
		t.Fatal(err)
	}
	// MIGRATE: the leader sends the key, every node deletes it.
	target := RunT(t)
	_, port, _ := net.SplitHostPort(target.Addr())
	lc.Set(ctx, "moving", "m", time.Hour)
	if err := lc.Do(ctx, "MIGRATE", "127.0.0.1", port, "moving", "0", "5000").Err(); err != nil {
		t.Fatalf("MIGRATE on a cluster: %v", err)
	}
	tcl := redis.NewClient(&redis.Options{Addr: target.Addr()})
	defer tcl.Close()
	if v, _ := tcl.Get(ctx, "moving").Result(); v != "m" {
		t.Fatalf("migrated key on the target: %q", v)
	}
	if d, _ := tcl.PTTL(ctx, "moving").Result(); d < 59*time.Minute {
		t.Fatalf("migrated key's TTL on the target: %v", d)
	}
	if err := lc.Do(ctx, "MIGRATE", "127.0.0.1", port, "k", "0", "5000", "COPY").Err(); err != nil {
		t.Fatalf("MIGRATE COPY on a cluster: %v", err)
	}
	if err := lc.Do(ctx, "MIGRATE", "127.0.0.1", port, "k", "0", "5000").Err(); err == nil || !strings.Contains(err.Error(), "BUSYKEY") {
		t.Fatalf("MIGRATE onto a key the target has: %v", err)
	}
	txn := lc.TxPipeline()
	txn.Do(ctx, "MIGRATE", "127.0.0.1", port, "k", "0", "5000", "REPLACE")
	if _, err := txn.Exec(ctx); err == nil || !strings.Contains(err.Error(), "inside MULTI or a script") {
		t.Fatalf("MIGRATE in MULTI on a cluster: %v", err)
	}
	waitFor(t, "every node to apply the same state", func() bool { return allSame(digests(tc)) })
	for i := range tc.srvs {
		if tc.has(i, "moving") || !tc.has(i, "k") {
			t.Fatalf("node %d after MIGRATE: moving %v, k %v", i, tc.has(i, "moving"), tc.has(i, "k"))
		}
	}
	var deadlines []int64
	for _, s := range tc.srvs {
		s.Do(func(e *engine.Engine) { deadlines = append(deadlines, e.DBs[0].Peek("lock2").Expire) })
	}
	if deadlines[0] == 0 || deadlines[0] != deadlines[1] || deadlines[1] != deadlines[2] {
		t.Fatalf("RESTORE's deadline differs between nodes: %v", deadlines)
	}

	// SAVE on a follower.
	fc := tc.client(f)
	var before, after uint64
	tc.srvs[f].Do(func(e *engine.Engine) { before = e.AppliedIndex() })
	if err := fc.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	tc.srvs[f].Do(func(e *engine.Engine) { after = e.AppliedIndex() })
	path := filepath.Join(dirs[tc.peers[f].ID], "dump.rdb")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	aux := map[string]string{}
	var keys []string
	err = rdb.ReadFile(data, rdb.Limits{MaxString: 1 << 20}, rdb.FileHandler{
		Aux: func(k, v []byte) { aux[string(k)] = string(v) },
		Key: func(db int, key []byte, exp int64, v store.Value, raw []byte) error {
			keys = append(keys, string(key))
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// (Entries may apply while SAVE's request travels.)
	if idx, err := strconv.ParseUint(aux["lockkv-raft-applied-index"], 10, 64); err != nil || idx < before || idx > after || idx == 0 {
		t.Fatalf("applied index in the file %q, node's %d before SAVE, %d after", aux["lockkv-raft-applied-index"], before, after)
	}
	var oldID string
	tc.srvs[f].Do(func(e *engine.Engine) { oldID = e.Cluster().Status().ClusterID })
	if aux["lockkv-raft-cluster-id"] != oldID || oldID == "" {
		t.Fatalf("cluster id in the file %q, cluster's %q", aux["lockkv-raft-cluster-id"], oldID)
	}
	if len(keys) != 4 { // k, lock, lock2, lock3 (z is empty, gone expired)
		t.Fatalf("keys in the backup: %v", keys)
	}

	// A new cluster from the backup: every node is given the file; the
	// one that leads loads it through the log.
	nc := startClusterCfg(t, 3, func(c *Config) { c.LoadRDB = path })
	waitFor(t, "the new cluster to hold the backup", func() bool {
		ds := digests(nc)
		return allSame(ds) && ds[0] == digests(tc)[0]
	})
	var newID string
	nc.srvs[nc.leader()].Do(func(e *engine.Engine) { newID = e.Cluster().Status().ClusterID })
	if newID == "" || newID == oldID {
		t.Fatalf("new cluster id %q, old %q", newID, oldID)
	}
	// It takes writes of its own.
	nl := nc.leader()
	if err := nc.client(nl).Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the write", func() bool { return nc.has((nl+1)%3, "after") })
}
