package admin

import (
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
)

// Server commands: ROLE TIME LASTSAVE SHUTDOWN MEMORY DEBUG.

var serverCommands = []*engine.Spec{
	{Name: "role", Arity: 1, Flags: engine.NoScript | engine.Loading | engine.Stale | engine.Fast, ACL: []string{"admin", "dangerous"}, NodeLocal: true, Fn: role}, // NodeLocal: this node's role and its view of the replicas
	{Name: "time", Arity: 1, Flags: engine.Loading | engine.Stale | engine.Fast, Tips: []string{"nondeterministic_output"}, Fn: timeCmd},
	{Name: "lastsave", Arity: 1, Flags: engine.Loading | engine.Stale | engine.Fast, ACL: []string{"admin", "dangerous"}, Tips: []string{"nondeterministic_output"}, NodeLocal: true, Fn: lastsave}, // NodeLocal: when this node last saved
	{Name: "shutdown", Arity: -1, Flags: engine.Admin | engine.NoScript | engine.Loading | engine.Stale | engine.NoMulti | engine.AllowBusy, Fn: shutdown},
	{Name: "debug", Arity: -2, Flags: engine.Admin | engine.NoScript | engine.Loading | engine.Stale | engine.Protected, NodeLocal: true, Fn: debug}, // NodeLocal: DEBUG OBJECT and others report this node's access data and memory
	{Name: "memory", Arity: -2, Sub: []*engine.Spec{
		{Name: "usage", Arity: -3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 2, KeyStep: 1}}, NodeLocal: true, Fn: memoryUsage}, // NodeLocal: estimated from the value's allocation (slice capacities), which depends on how this node built it
		{Name: "doctor", Arity: 2, Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}, Fn: memoryDoctor},
		{Name: "stats", Arity: 2, Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}, NodeLocal: true, Fn: memoryStats}, // NodeLocal: the Go heap and this node's clients
		{Name: "malloc-stats", Arity: 2, Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"}, Fn: memoryMallocStats},
		{Name: "purge", Arity: 2, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: memoryPurge},
		{Name: "help", Arity: 2, Flags: engine.Loading | engine.Stale, Fn: memoryHelp},
	}},
}

func init() { engine.Register(serverCommands) }

func role(c *engine.Ctx, args [][]byte) {
	if c.E.Cluster() != nil {
		roleCluster(c)
		return
	}
	c.W.Array(3)
	c.W.BulkString("master")
	c.W.Int(0)
	c.W.Array(0)
}

func timeCmd(c *engine.Ctx, args [][]byte) {
	now := c.E.Clock.Now()
	c.W.Array(2)
	c.W.BulkInt(now.Unix())
	c.W.BulkInt(int64(now.Nanosecond() / 1000))
}

func lastsave(c *engine.Ctx, args [][]byte) { c.W.Int(c.E.LastSave()) }

func shutdown(c *engine.Ctx, args [][]byte) {
	const (
		nosave = 1 << iota
		save
		now
		force
	)
	flags, abort := 0, false
	for _, a := range args[1:] {
		switch {
		case cstr.EqualFold(a, "nosave"):
			flags |= nosave
		case cstr.EqualFold(a, "save"):
			flags |= save
		case cstr.EqualFold(a, "now"):
			flags |= now
		case cstr.EqualFold(a, "force"):
			flags |= force
		case cstr.EqualFold(a, "abort"):
			abort = true
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	if (abort && flags != 0) || (flags&nosave != 0 && flags&save != 0) {
		c.Error(engine.ErrSyntax)
		return
	}
	if abort {
		c.Error(engine.ErrNoShutdown)
		return
	}
	// Redis closes every connection without replying to SHUTDOWN.
	if !c.E.Shutdown() {
		c.Error(engine.ErrShutdownFailed)
	}
}
