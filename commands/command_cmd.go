package commands

import (
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
)

// COMMAND, generated from the command table: COMMAND INFO replies in
// Redis 7.0's ten-field format (name, arity, flags, first key, last key,
// step, ACL categories, tips, key specs, subcommands).

var commandSubs = []*Spec{
	{Name: "count", Arity: 2, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandCount},
	{Name: "info", Arity: -2, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandInfo},
	{Name: "docs", Arity: -2, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandDocs},
	{Name: "list", Arity: -2, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandList},
	{Name: "getkeys", Arity: -4, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandGetKeys},
	{Name: "getkeysandflags", Arity: -4, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandGetKeysAndFlags},
	{Name: "help", Arity: 2, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Fn: commandHelp},
}

var commandCommands = []*Spec{
	{Name: "command", Arity: -1, Flags: Loading | Stale, ACL: []string{"slow", "connection"}, Sub: commandSubs, Fn: commandAll},
}

func init() { Register(commandCommands) }

// command helpers

// aclCategories in Redis's order (ACLCommandCategories).
var aclCategories = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash",
	"string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting"}

// categories returns spec's ACL categories with the implicit ones Redis
// adds from the flags (setImplicitACLCategories), in Redis's order.
func categories(s *Spec) []string {
	has := map[string]bool{}
	for _, c := range s.ACL {
		has[strings.TrimPrefix(c, "@")] = true
	}
	f := s.Flags
	if f&Write != 0 {
		has["write"] = true
	}
	if f&ReadOnly != 0 && !has["scripting"] {
		has["read"] = true
	}
	if f&Admin != 0 {
		has["admin"], has["dangerous"] = true, true
	}
	if f&PubSub != 0 {
		has["pubsub"] = true
	}
	if f&Fast != 0 {
		has["fast"] = true
	}
	if f&Blocking != 0 {
		has["blocking"] = true
	}
	if !has["fast"] {
		has["slow"] = true
	}
	out := make([]string, 0, len(has))
	for _, c := range aclCategories {
		if has[c] {
			out = append(out, c)
		}
	}
	return out
}

// movable reports whether spec's keys are found by a function (EVAL,
// ZUNIONSTORE...), which COMMAND shows as movablekeys with 0 0 0.
func movable(s *Spec) bool { return s.Keys != nil }

func commandFlagNames(s *Spec) []string {
	var out []string
	for _, fn := range flagNames {
		if fn.f == AllowBusy && movable(s) {
			out = append(out, "movablekeys") // Redis lists it before allow_busy
		}
		if s.Flags&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// commandTips are the tips COMMAND INFO reports, for the commands that
// have them.
var commandTips = map[string][]string{
	"client|list": {"nondeterministic_output"}, "client|info": {"nondeterministic_output"},
	"info": {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
	"time": {"nondeterministic_output"}, "lastsave": {"nondeterministic_output"},
	"dump": {"nondeterministic_output"}, "migrate": {"nondeterministic_output"},
	"command": {"nondeterministic_output_order"}, "command|info": {"nondeterministic_output_order"},
	"command|docs": {"nondeterministic_output_order"}, "command|list": {"nondeterministic_output_order"},
	"config|set":    {"request_policy:all_nodes", "response_policy:all_succeeded"},
	"wait":          {"request_policy:all_shards", "response_policy:agg_min"},
	"waitaof":       {"request_policy:all_shards", "response_policy:agg_min"}, // 7.2
	"memory|doctor": {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
	"memory|stats":  {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
	"object|freq":   {"nondeterministic_output"}, "object|idletime": {"nondeterministic_output"},
	"object|encoding": {"nondeterministic_output"}, "object|refcount": {"nondeterministic_output"},
	"randomkey": {"nondeterministic_output"}, "keys": {"request_policy:all_shards", "nondeterministic_output_order"},
	"scan": {"nondeterministic_output", "request_policy:special"}, "dbsize": {"request_policy:all_shards", "response_policy:agg_sum"},
	"flushall": {"request_policy:all_shards", "response_policy:all_succeeded"},
	"flushdb":  {"request_policy:all_shards", "response_policy:all_succeeded"},
	"smembers": {"nondeterministic_output_order"}, "hgetall": {"nondeterministic_output_order"},
	"hkeys": {"nondeterministic_output_order"}, "hvals": {"nondeterministic_output_order"},
	"spop": {"nondeterministic_output"}, "srandmember": {"nondeterministic_output"},
	"hrandfield": {"nondeterministic_output"}, "zrandmember": {"nondeterministic_output"},
	"sscan": {"nondeterministic_output"}, "hscan": {"nondeterministic_output"}, "zscan": {"nondeterministic_output"},
	"script|exists": {"request_policy:all_shards", "response_policy:agg_logical_and"},
	"script|flush":  {"request_policy:all_nodes", "response_policy:all_succeeded"},
	"script|load":   {"request_policy:all_nodes", "response_policy:all_succeeded"},
	"script|kill":   {"request_policy:all_shards", "response_policy:one_succeeded"},
	"cluster|info":  {"nondeterministic_output"}, "cluster|slots": {"nondeterministic_output"},
	"cluster|nodes": {"nondeterministic_output"}, "cluster|shards": {"nondeterministic_output"},
	"cluster|links": {"nondeterministic_output"}, "cluster|getkeysinslot": {"nondeterministic_output"},
	"cluster|bumpepoch": {"nondeterministic_output"}, "cluster|count-failure-reports": {"nondeterministic_output"},
	"cluster|replicas": {"nondeterministic_output"}, "cluster|slaves": {"nondeterministic_output"},
	"memory|malloc-stats": {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
	"memory|purge":        {"request_policy:all_shards", "response_policy:all_succeeded"},
}

// legacyRange is the (first, last, step) COMMAND reports.
func legacyRange(s *Spec) (int64, int64, int64) {
	if s.FirstKey <= 0 {
		return 0, 0, 0
	}
	return int64(s.FirstKey), int64(s.LastKey), int64(s.Step)
}

// writeKeySpecs approximates Redis's key specs from the key range: the
// begin_search index and find_keys range are exact, the flags are RO
// ACCESS or RW UPDATE.
func writeKeySpecs(c *Ctx, s *Spec) {
	first, last, step := legacyRange(s)
	if first == 0 {
		c.W.Set(0)
		return
	}
	c.W.Set(1)
	c.W.Map(3)
	c.W.BulkString("flags")
	if len(s.KeyFlags) > 0 {
		c.W.Set(len(s.KeyFlags))
		for _, f := range s.KeyFlags {
			c.W.Status(f)
		}
	} else if s.Flags&Write != 0 {
		c.W.Set(2)
		c.W.Status("RW")
		c.W.Status("update")
	} else {
		c.W.Set(2)
		c.W.Status("RO")
		c.W.Status("access")
	}
	c.W.BulkString("begin_search")
	c.W.Map(2)
	c.W.BulkString("type")
	c.W.BulkString("index")
	c.W.BulkString("spec")
	c.W.Map(1)
	c.W.BulkString("index")
	c.W.Int(first)
	c.W.BulkString("find_keys")
	c.W.Map(2)
	c.W.BulkString("type")
	c.W.BulkString("range")
	c.W.BulkString("spec")
	c.W.Map(3)
	c.W.BulkString("lastkey")
	if last >= 0 {
		c.W.Int(last - first)
	} else {
		c.W.Int(last)
	}
	c.W.BulkString("keystep")
	c.W.Int(step)
	c.W.BulkString("limit")
	c.W.Int(0)
}

func writeCommandInfo(c *Ctx, s *Spec) {
	c.W.Array(10)
	c.W.BulkString(s.FullName())
	c.W.Int(int64(s.Arity))
	flags := commandFlagNames(s)
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.Status(f)
	}
	first, last, step := legacyRange(s)
	c.W.Int(first)
	c.W.Int(last)
	c.W.Int(step)
	cats := categories(s)
	c.W.Set(len(cats))
	for _, cat := range cats {
		c.W.Status("@" + cat)
	}
	tips := commandTips[s.FullName()]
	c.W.Set(len(tips))
	for _, t := range tips {
		c.W.BulkString(t)
	}
	writeKeySpecs(c, s)
	c.W.Set(len(s.Sub))
	for _, sub := range s.Sub {
		writeCommandInfo(c, sub)
	}
}

// lookupFullName finds "get" or "config|get" among e's commands.
func (e *Engine) lookupFullName(name string) *Spec {
	parent, sub, found := strings.Cut(name, "|")
	s := Lookup([]byte(parent))
	if s != nil && s.ClusterOnly && e.Cluster == nil {
		return nil
	}
	if s == nil || !found {
		return s
	}
	if len(s.Sub) == 0 {
		return nil
	}
	return s.Subcommand([]byte(sub))
}

// specs returns the commands e has, sorted by name: a standalone server
// has no cluster-only ones (SENTINEL).
func (e *Engine) specs() []*Spec {
	all := All()
	if e.Cluster != nil {
		return all
	}
	out := all[:0]
	for _, s := range all {
		if !s.ClusterOnly {
			out = append(out, s)
		}
	}
	return out
}

// COMMAND subcommands

func commandAll(c *Ctx, args [][]byte) {
	all := c.E.specs()
	c.W.Array(len(all))
	for _, s := range all {
		writeCommandInfo(c, s)
	}
}

func commandCount(c *Ctx, args [][]byte) { c.W.Int(int64(len(c.E.specs()))) }

func commandInfo(c *Ctx, args [][]byte) {
	if len(args) == 2 {
		commandAll(c, args)
		return
	}
	c.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		s := c.E.lookupFullName(string(a))
		if s == nil {
			c.W.Null()
			continue
		}
		writeCommandInfo(c, s)
	}
}

// commandGroup guesses the documentation group from the ACL categories.
func commandGroup(s *Spec) string {
	for _, c := range categories(s) {
		switch c {
		case "string", "list", "set", "hash", "stream", "geo", "hyperloglog", "bitmap", "pubsub", "transaction", "scripting", "connection":
			return c
		case "sortedset":
			return "sorted-set"
		}
	}
	if s.FirstKey > 0 {
		return "generic"
	}
	return "server"
}

// commandDocs answers with each command's documentation (docs.go): in
// the order given, unknown names left out; without names, every command.
func commandDocs(c *Ctx, args [][]byte) {
	var specs []*Spec
	if len(args) == 2 {
		specs = c.E.specs()
	} else {
		for _, a := range args[2:] {
			if s := c.E.lookupFullName(string(a)); s != nil {
				specs = append(specs, s)
			}
		}
	}
	c.W.Map(len(specs))
	for _, s := range specs {
		c.W.BulkString(s.FullName())
		writeCommandDoc(c, s)
	}
}

func commandList(c *Ctx, args [][]byte) {
	var match func(s *Spec) bool
	switch {
	case len(args) == 2:
		match = func(*Spec) bool { return true }
	case len(args) == 5 && cstr.EqualFold(args[2], "filterby"):
		val := string(args[4])
		switch {
		case cstr.EqualFold(args[3], "module"):
			match = func(*Spec) bool { return false }
		case cstr.EqualFold(args[3], "aclcat"):
			cat := strings.ToLower(val)
			match = func(s *Spec) bool {
				for _, x := range categories(s) {
					if x == cat {
						return true
					}
				}
				return false
			}
		case cstr.EqualFold(args[3], "pattern"):
			match = func(s *Spec) bool { return glob.Match(val, s.FullName(), true) }
		default:
			c.Error(ErrSyntax)
			return
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	var names []string
	for _, s := range c.E.specs() {
		if match(s) {
			names = append(names, s.FullName())
		}
		for _, sub := range s.Sub {
			if match(sub) {
				names = append(names, sub.FullName())
			}
		}
	}
	c.W.StringArray(names)
}

// getKeys resolves the command in args[2:] and its key positions, replying
// with Redis's error when there is none.
func getKeys(c *Ctx, args [][]byte) ([][]byte, *Spec, []int, bool) {
	cmd := args[2:]
	s := Lookup(cmd[0])
	if s == nil {
		c.Error(ErrInvalidCommand)
		return nil, nil, nil, false
	}
	if len(s.Sub) > 0 && len(cmd) >= 2 {
		if sub := s.Subcommand(cmd[1]); sub != nil {
			s = sub
		}
	}
	if !s.CheckArity(len(cmd)) {
		c.Error(ErrInvalidArgsForCmd)
		return nil, nil, nil, false
	}
	pos := s.KeyPositions(cmd)
	notKey := len(s.KeyFlags) == 1 && s.KeyFlags[0] == "not_key"
	if notKey {
		pos = nil
	}
	if len(pos) == 0 {
		if (s.FirstKey > 0 || s.Keys != nil) && !notKey {
			// A command with keys whose arguments name none (LMPOP 0 ...):
			// getKeysFromCommandWithSpecs found nothing.
			c.Error(ErrInvalidArgsSpecified)
		} else {
			c.Error(ErrNoKeyArgs)
		}
		return nil, nil, nil, false
	}
	return cmd, s, pos, true
}

func commandGetKeys(c *Ctx, args [][]byte) {
	cmd, _, pos, ok := getKeys(c, args)
	if !ok {
		return
	}
	c.W.Array(len(pos))
	for _, p := range pos {
		c.W.Bulk(cmd[p])
	}
}

func commandGetKeysAndFlags(c *Ctx, args [][]byte) {
	cmd, s, pos, ok := getKeys(c, args)
	if !ok {
		return
	}
	c.W.Array(len(pos))
	for _, p := range pos {
		c.W.Array(2)
		c.W.Bulk(cmd[p])
		if len(s.KeyFlags) > 0 {
			c.W.Set(len(s.KeyFlags))
			for _, f := range s.KeyFlags {
				c.W.Status(f)
			}
			continue
		}
		c.W.Set(2)
		if s.Flags&Write != 0 {
			c.W.Status("RW")
			c.W.Status("update")
		} else {
			c.W.Status("RO")
			c.W.Status("access")
		}
	}
}

var commandHelpLines = []string{
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
}

func commandHelp(c *Ctx, args [][]byte) { replyHelp(c, "command", commandHelpLines) }
