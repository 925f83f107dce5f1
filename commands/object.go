package commands

import (
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/store"
)

// OBJECT: how a key's value is kept (encoding, access data, refcount).

var objectCommands = []*engine.Spec{
	{Name: "object", Arity: -2, Sub: []*engine.Spec{
		{Name: "encoding", Arity: 3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: objectEncoding},
		{Name: "freq", Arity: 3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, NodeLocal: true, Fn: objectFreq},         // NodeLocal: LFU counters: this node's reads and its own generator
		{Name: "idletime", Arity: 3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, NodeLocal: true, Fn: objectIdletime}, // NodeLocal: access times: this node's reads
		{Name: "refcount", Arity: 3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: objectRefcount},
		{Name: "help", Arity: 2, Flags: engine.Loading | engine.Stale, ACL: []string{"keyspace"}, Fn: objectHelp},
	}},
}

func init() { engine.Register(objectCommands) }

// objectLookup finds a key for OBJECT without touching its access time.
func objectLookup(c *engine.Ctx, key []byte) *store.Entry {
	return c.DB.Lookup(string(key), c.Now)
}

func objectEncoding(c *engine.Ctx, args [][]byte) {
	e := objectLookup(c, args[2])
	if e == nil {
		c.W.Null()
		return
	}
	c.W.BulkString(e.Value.Encoding())
}

func objectFreq(c *engine.Ctx, args [][]byte) {
	e := objectLookup(c, args[2])
	if e == nil {
		c.W.Null()
		return
	}
	if !c.E.Config.LFU {
		c.Error(engine.ErrObjectFreqPolicy)
		return
	}
	c.W.Int(c.E.KeyFreq(e, c.Now))
}

func objectIdletime(c *engine.Ctx, args [][]byte) {
	e := objectLookup(c, args[2])
	if e == nil {
		c.W.Null()
		return
	}
	if c.E.Config.LFU {
		c.Error(engine.ErrObjectIdleLFU)
		return
	}
	// Redis's LRU clock counts whole seconds: the idle time goes up at
	// each second boundary.
	c.W.Int(c.E.KeyIdleSeconds(e, c.Now))
}

func objectRefcount(c *engine.Ctx, args [][]byte) {
	e := objectLookup(c, args[2])
	if e == nil {
		c.W.Null()
		return
	}
	c.W.Int(engine.Refcount(e.Value))
}

var objectHelpLines = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

func objectHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "object", objectHelpLines) }
