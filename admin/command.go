package admin

import (
	"strings"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
)

// COMMAND, generated from the command table: COMMAND INFO replies in
// Redis 7.0's ten-field format (name, arity, flags, first key, last key,
// step, ACL categories, tips, key specs, subcommands).

var commandSubs = []*engine.Spec{
	{Name: "count", Arity: 2, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Fn: commandCount},
	{Name: "info", Arity: -2, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output_order"}, Fn: commandInfo},
	{Name: "docs", Arity: -2, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output_order"}, Fn: commandDocs},
	{Name: "list", Arity: -2, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output_order"}, Fn: commandList},
	{Name: "getkeys", Arity: -4, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Fn: commandGetKeys},
	{Name: "getkeysandflags", Arity: -4, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Fn: commandGetKeysAndFlags},
	{Name: "help", Arity: 2, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Fn: commandHelp},
}

var commandCommands = []*engine.Spec{
	{Name: "command", Arity: -1, Flags: engine.Loading | engine.Stale, ACL: []string{"connection"}, Sub: commandSubs, Tips: []string{"nondeterministic_output_order"}, Fn: commandAll},
}

func init() { engine.Register(commandCommands) }

// command helpers

// writeKeySpecs writes s's key specs as Redis's addReplyCommandKeySpecs.
func writeKeySpecs(c *engine.Ctx, s *engine.Spec) {
	c.W.Set(len(s.KeySpecs))
	for i := range s.KeySpecs {
		ks := &s.KeySpecs[i]
		n := 3
		if ks.Notes != "" {
			n++
		}
		c.W.Map(n)
		if ks.Notes != "" {
			c.W.BulkString("notes")
			c.W.BulkString(ks.Notes)
		}
		c.W.BulkString("flags")
		writeKeyFlags(c, ks.Flags)
		c.W.BulkString("begin_search")
		c.W.Map(2)
		c.W.BulkString("type")
		switch ks.Begin {
		case engine.BeginIndex:
			c.W.BulkString("index")
			c.W.BulkString("spec")
			c.W.Map(1)
			c.W.BulkString("index")
			c.W.Int(int64(ks.Pos))
		case engine.BeginKeyword:
			c.W.BulkString("keyword")
			c.W.BulkString("spec")
			c.W.Map(2)
			c.W.BulkString("keyword")
			c.W.BulkString(ks.Keyword)
			c.W.BulkString("startfrom")
			c.W.Int(int64(ks.StartFrom))
		default:
			c.W.BulkString("unknown")
			c.W.BulkString("spec")
			c.W.Map(0)
		}
		c.W.BulkString("find_keys")
		c.W.Map(2)
		c.W.BulkString("type")
		switch ks.Find {
		case engine.FindRange:
			c.W.BulkString("range")
			c.W.BulkString("spec")
			c.W.Map(3)
			c.W.BulkString("lastkey")
			c.W.Int(int64(ks.LastKey))
			c.W.BulkString("keystep")
			c.W.Int(int64(ks.KeyStep))
			c.W.BulkString("limit")
			c.W.Int(int64(ks.Limit))
		case engine.FindKeyNum:
			c.W.BulkString("keynum")
			c.W.BulkString("spec")
			c.W.Map(3)
			c.W.BulkString("keynumidx")
			c.W.Int(int64(ks.KeyNumIdx))
			c.W.BulkString("firstkey")
			c.W.Int(int64(ks.FirstKey))
			c.W.BulkString("keystep")
			c.W.Int(int64(ks.KeyStep))
		default:
			c.W.BulkString("unknown")
			c.W.BulkString("spec")
			c.W.Map(0)
		}
	}
}

// writeKeyFlags writes key-spec flags as a set of status strings
// (addReplyFlagsForKeyArgs).
func writeKeyFlags(c *engine.Ctx, f engine.KeyFlag) {
	names := f.Names()
	c.W.Set(len(names))
	for _, n := range names {
		c.W.Status(n)
	}
}

func writeCommandInfo(c *engine.Ctx, s *engine.Spec) {
	c.W.Array(10)
	c.W.BulkString(s.FullName())
	c.W.Int(int64(s.Arity))
	flags := s.CommandFlags()
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.Status(f)
	}
	first, last, step := s.LegacyRange()
	c.W.Int(first)
	c.W.Int(last)
	c.W.Int(step)
	cats := s.Categories()
	c.W.Set(len(cats))
	for _, cat := range cats {
		c.W.Status("@" + cat)
	}
	tips := s.Tips
	c.W.Set(len(tips))
	for _, t := range tips {
		c.W.BulkString(t)
	}
	writeKeySpecs(c, s)
	if len(s.Sub) == 0 {
		c.W.Set(0) // addReplyCommandSubCommands: an empty set, else an array
		return
	}
	c.W.Array(len(s.Sub))
	for _, sub := range s.Sub {
		writeCommandInfo(c, sub)
	}
}

// COMMAND subcommands

func commandAll(c *engine.Ctx, args [][]byte) {
	all := c.E.Specs()
	c.W.Array(len(all))
	for _, s := range all {
		writeCommandInfo(c, s)
	}
}

func commandCount(c *engine.Ctx, args [][]byte) { c.W.Int(int64(len(c.E.Specs()))) }

func commandInfo(c *engine.Ctx, args [][]byte) {
	if len(args) == 2 {
		commandAll(c, args)
		return
	}
	c.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		s := c.E.LookupFullName(string(a))
		if s == nil {
			c.W.Null()
			continue
		}
		writeCommandInfo(c, s)
	}
}

// commandGroup guesses the documentation group from the ACL categories.
func commandGroup(s *engine.Spec) string {
	for _, c := range s.Categories() {
		switch c {
		case "string", "list", "set", "hash", "stream", "geo", "hyperloglog", "bitmap", "pubsub", "transaction", "scripting", "connection":
			return c
		case "sortedset":
			return "sorted-set"
		}
	}
	if first, _, _ := s.LegacyRange(); first > 0 {
		return "generic"
	}
	return "server"
}

// commandDocs answers with each command's documentation (docs.go): in
// the order given, unknown names left out; without names, every command.
func commandDocs(c *engine.Ctx, args [][]byte) {
	var specs []*engine.Spec
	if len(args) == 2 {
		specs = c.E.Specs()
	} else {
		for _, a := range args[2:] {
			if s := c.E.LookupFullName(string(a)); s != nil {
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

func commandList(c *engine.Ctx, args [][]byte) {
	var match func(s *engine.Spec) bool
	switch {
	case len(args) == 2:
		match = func(*engine.Spec) bool { return true }
	case len(args) == 5 && cstr.EqualFold(args[2], "filterby"):
		val := string(args[4])
		switch {
		case cstr.EqualFold(args[3], "module"):
			match = func(*engine.Spec) bool { return false }
		case cstr.EqualFold(args[3], "aclcat"):
			cat := strings.ToLower(val)
			match = func(s *engine.Spec) bool {
				for _, x := range s.Categories() {
					if x == cat {
						return true
					}
				}
				return false
			}
		case cstr.EqualFold(args[3], "pattern"):
			match = func(s *engine.Spec) bool { return glob.Match(val, s.FullName(), true) }
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	default:
		c.Error(engine.ErrSyntax)
		return
	}
	var names []string
	for _, s := range c.E.Specs() {
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
func getKeys(c *engine.Ctx, args [][]byte) ([][]byte, *engine.Spec, []int, bool) {
	cmd := args[2:]
	s := engine.Lookup(cmd[0])
	if s == nil {
		c.Error(engine.ErrInvalidCommand)
		return nil, nil, nil, false
	}
	if len(s.Sub) > 0 && len(cmd) >= 2 {
		if sub := s.Subcommand(cmd[1]); sub != nil {
			s = sub
		}
	}
	if !s.CheckArity(len(cmd)) {
		c.Error(engine.ErrInvalidArgsForCmd)
		return nil, nil, nil, false
	}
	pos := s.KeyPositions(cmd)
	notKey := s.OnlyNotKeys()
	if notKey {
		pos = nil
	}
	if len(pos) == 0 {
		if first, _, _ := s.LegacyRange(); (first > 0 || s.Keys != nil) && !notKey {
			// A command with keys whose arguments name none (LMPOP 0 ...):
			// getKeysFromCommandWithSpecs found nothing.
			c.Error(engine.ErrInvalidArgsSpecified)
		} else {
			c.Error(engine.ErrNoKeyArgs)
		}
		return nil, nil, nil, false
	}
	return cmd, s, pos, true
}

func commandGetKeys(c *engine.Ctx, args [][]byte) {
	cmd, _, pos, ok := getKeys(c, args)
	if !ok {
		return
	}
	c.W.Array(len(pos))
	for _, p := range pos {
		c.W.Bulk(cmd[p])
	}
}

func commandGetKeysAndFlags(c *engine.Ctx, args [][]byte) {
	cmd, s, pos, ok := getKeys(c, args)
	if !ok {
		return
	}
	flags := s.KeyFlags(cmd, pos)
	c.W.Array(len(pos))
	for i, p := range pos {
		c.W.Array(2)
		c.W.Bulk(cmd[p])
		writeKeyFlags(c, flags[i])
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

func commandHelp(c *engine.Ctx, args [][]byte) { engine.ReplyHelp(c, "command", commandHelpLines) }
