package clustertest

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
)

// hostileInputs are commands that once took a node down (a Go panic, a
// stack overflow or an allocation the input asked for) and, being writes
// or scripts, every node of a cluster with it, again at every restart as
// the log replays them.
//
// What Redis answers some of them is no error (a string for the nested
// coroutines, arrays nested 8000 deep ending in an error for the table
// that contains itself): those must get a reply, the others an error.
var hostileInputs = []struct {
	name    string
	args    []any
	wantErr bool
}{
	// FUNCTION RESTORE: lengths the payload cannot back.
	{"FUNCTION RESTORE of a negative length", []any{"FUNCTION", "RESTORE", restorePayload(append([]byte{245, 0x81}, 0x80, 0, 0, 0, 0, 0, 0, 0, 'a'))}, true},
	{"FUNCTION RESTORE of an LZF string claiming 1 TB", []any{"FUNCTION", "RESTORE", restorePayload([]byte{245, 0xC3, 2, 0x81, 0, 0, 1, 0, 0, 0, 0, 0, 0, 'a'})}, true},
	// Lua: recursion over what a script builds or decodes.
	{"a table reply that contains itself", []any{"EVAL", "local t={} t[1]=t return t", "0"}, false},
	{"300000 results of string.byte", []any{"EVAL", "return select('#', string.byte(string.rep('a',300000),1,-1))", "0"}, true},
	{"cjson.decode of 100000 nested arrays", []any{"EVAL", "return cjson.decode(string.rep('[',100000))", "0"}, true},
	{"cmsgpack.unpack of 100000 nested arrays", []any{"EVAL", "return cmsgpack.unpack(string.rep(string.char(0x91),100000) .. string.char(0xc0))", "0"}, true},
	{"10000 nested coroutines", []any{"EVAL", "local function f(n) if n == 0 then return 0 end " +
		"local ok, v = coroutine.resume(coroutine.create(f), n-1) return v end return f(10000)", "0"}, false},
	{"a function whose reply contains itself", []any{"FCALL", "rec", "0"}, false},
}

// restorePayload wraps body in FUNCTION DUMP's trailer: RDB version 10 and
// Redis's CRC64 (Jones, reflected, no inversion) of what precedes.
func restorePayload(body []byte) string {
	p := append(append([]byte(nil), body...), 10, 0)
	crc := uint64(0)
	for _, c := range p {
		crc ^= uint64(c)
		for i := 0; i < 8; i++ {
			if crc&1 == 1 {
				crc = crc>>1 ^ 0x95AC9329AC4BC9B5
			} else {
				crc >>= 1
			}
		}
	}
	return string(binary.LittleEndian.AppendUint64(p, crc))
}

// TestHostileInputs: each hostile input sent to the leader of a 3-node
// cluster gets a reply (an error where Redis answers one) and every node
// stays up; then every node is
// SIGKILLed and restarted (a snapshot restored, the log after it, hostile
// inputs included, replayed), and all of them come back, elect a leader
// and serve what was written before: reads and the lock scripts.
func TestHostileInputs(t *testing.T) {
	c := newCluster(t, 3, snapshotOften)
	ctx := context.Background()
	l := c.Leader()
	cl := c.client(l)

	// A snapshot on every node first: the restart restores it, then
	// replays the log after it, where the hostile inputs are.
	fill := 0
	testutil.Eventually(t, 30*time.Second, func() error { // until a snapshot on every node
		for i := 0; i < 50; i++ {
			if err := cl.Set(ctx, fmt.Sprintf("h:fill:%d", fill), "x", 0).Err(); err != nil {
				return err
			}
			fill++
		}
		for i := range c.nodes {
			m, err := c.info(i)
			if err != nil {
				return err
			}
			if s := m["raft_last_snapshot_index"]; s == "" || s == "0" {
				return fmt.Errorf("%s has no snapshot", c.nodes[i].id)
			}
		}
		return nil
	})
	const lease = time.Minute
	lockName, lockOwner := "h:lock", owner(1, 1)
	if held, _, err := acquire(ctx, cl, lockName, lockOwner, lease); err != nil || !held {
		t.Fatalf("acquire: held %v, %v", held, err)
	}
	if err := cl.Set(ctx, "h:before", "kept", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Do(ctx, "FUNCTION", "LOAD", "#!lua name=rec\nredis.register_function('rec', function() local t={} t[1]=t return t end)").Err(); err != nil {
		t.Fatal(err)
	}

	// Subtests, so that -run TestHostileInputs/cjson sends one input.
	for _, in := range hostileInputs {
		t.Run(in.name, func(t *testing.T) {
			err := cl.Do(ctx, in.args...).Err()
			_, isErr := err.(redis.Error)
			switch {
			case in.wantErr && !isErr:
				t.Errorf("%v, want an error reply", err)
			case err != nil && !isErr:
				t.Errorf("%v, want a reply", err)
			}
			if down := c.down(); len(down) > 0 {
				t.Fatalf("took down %s", strings.Join(down, ", "))
			}
		})
		if t.Failed() {
			// The log holds the input: the cluster is gone for good.
			t.FailNow()
		}
	}
	// A long script may have cost the leader its leadership.
	l = c.Leader()
	cl = c.client(l)
	if err := cl.Set(ctx, "h:after", "kept", 0).Err(); err != nil {
		t.Fatal(err)
	}
	c.waitConverged(30 * time.Second)

	for i := range c.nodes {
		c.Kill(i)
	}
	for i := range c.nodes {
		c.Restart(i)
	}
	l = c.Leader()
	cl = c.client(l)
	for _, k := range []string{"h:before", "h:after"} {
		if v, err := cl.Get(ctx, k).Result(); err != nil || v != "kept" {
			t.Errorf("GET %s = %q, %v after the restart", k, v, err)
		}
	}
	if v, err := cl.Get(ctx, fmt.Sprintf("h:fill:%d", fill-1)).Result(); err != nil || v != "x" {
		t.Errorf("GET of the last filler = %q, %v after the restart", v, err)
	}
	// The lock survived with its owner; another client cannot take it,
	// the owner can release it, and then the other one takes it.
	if held, pttl, err := acquire(ctx, cl, lockName, owner(2, 1), lease); err != nil || held || pttl <= 0 {
		t.Errorf("acquire by another owner after the restart: held %v pttl %d, %v", held, pttl, err)
	}
	if n, err := release(ctx, cl, lockName, lockOwner, lease); err != nil || n != 1 {
		t.Errorf("release by the owner after the restart: %d, %v", n, err)
	}
	if held, _, err := acquire(ctx, cl, lockName, owner(2, 1), lease); err != nil || !held {
		t.Errorf("acquire after the release: held %v, %v", held, err)
	}
	if down := c.down(); len(down) > 0 {
		t.Errorf("after the restart, down: %s", strings.Join(down, ", "))
	}
}

// down names the nodes not running or not answering PING.
func (c *cluster) down() []string {
	var out []string
	for i, nd := range c.nodes {
		if !c.Running(i) {
			out = append(out, nd.id+" (exited)")
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := c.admin[i].Ping(ctx).Err()
		cancel()
		if err != nil {
			out = append(out, fmt.Sprintf("%s (PING: %v)", nd.id, err))
		}
	}
	return out
}
