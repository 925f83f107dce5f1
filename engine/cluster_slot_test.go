package engine_test

import (
	"testing"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

func TestKeySlot(t *testing.T) {
	for key, want := range map[string]int{
		"foo":           12182, // redis-cli CLUSTER KEYSLOT foo
		"bar":           5061,
		"{user1000}.a":  3443,
		"{user1000}.b":  3443,
		"user1000":      3443,
		"foo{}{bar}":    8363, // an empty tag: the whole key
		"foo{{bar}}zap": 4015, // the tag is "{bar"
		"foo{bar}{zap}": 5061, // the first tag only
		"":              0,
		"{":             engine.KeySlot([]byte("{")),
	} {
		if got := engine.KeySlot([]byte(key)); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", key, got, want)
		}
	}
	if engine.CRC16([]byte("123456789")) != 0x31C3 {
		t.Errorf("crc16 check value = %#x", engine.CRC16([]byte("123456789")))
	}
}

func TestRedirect(t *testing.T) {
	fc := enginetest.NewFakeCluster("n2")
	te := enginetest.NewCluster(t, fc)
	cl, _ := te.Client()
	c := &engine.Ctx{E: te.E, C: cl}
	cmd := func(args ...string) (*engine.Spec, [][]byte) {
		a := make([][]byte, len(args))
		for i, s := range args {
			a[i] = []byte(s)
		}
		spec := engine.Lookup(a[0])
		if len(spec.Sub) > 0 {
			spec = spec.Subcommand(a[1])
		}
		return spec, a
	}
	check := func(want string, args ...string) {
		t.Helper()
		if got := c.Redirect(cmd(args...)); got != want {
			t.Errorf("%v: redirect = %q, want %q", args, got, want)
		}
	}
	// A follower: keyed commands go to the leader, with the first key's slot.
	check("MOVED 12182 10.0.0.1:6001", "SET", "foo", "v")
	check("MOVED 12182 10.0.0.1:6001", "GET", "foo")
	check("MOVED 5061 10.0.0.1:6001", "MGET", "bar", "foo")
	check("MOVED 12182 10.0.0.1:6001", "EVAL", "return 1", "1", "{foo}1")
	check("MOVED 12182 10.0.0.1:6001", "OBJECT", "ENCODING", "foo")
	// Keyless commands run where they are sent.
	check("", "PING")
	check("", "EVAL", "return 1", "0")
	check("", "CLUSTER", "SLOTS")
	check("", "PUBLISH", "ch", "m")
	// READONLY lets reads run on the follower; writes still move.
	cl.Readonly = true
	check("", "GET", "foo")
	check("", "HGETALL", "foo")
	check("MOVED 12182 10.0.0.1:6001", "SET", "foo", "v")
	cl.Readonly = false
	// So does the stale read mode; lease reads still go to the leader.
	te.E.Config.ReadMode = config.ReadStale
	check("", "GET", "foo")
	check("MOVED 12182 10.0.0.1:6001", "INCR", "foo")
	te.E.Config.ReadMode = config.ReadLease
	check("MOVED 12182 10.0.0.1:6001", "GET", "foo")
	te.E.Config.ReadMode = config.ReadLinearizable
	// A leader without a client address cannot be named.
	fc.Members[0].ClientAddr = ""
	check(engine.ErrClusterDown, "GET", "foo")
	// The leader runs everything.
	fc.SelfID = "n1"
	check("", "SET", "foo", "v")
	check("", "GET", "foo")
}
