package engine

import (
	"slices"
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
)

// COMMAND, generated from the command table: COMMAND INFO replies in
// Redis 7.0's ten-field format (name, arity, flags, first key, last key,
// step, ACL categories, tips, key specs, subcommands).

var commandSubs = []*Spec{
	{Name: "count", Arity: 2, Flags: Loading | Stale, ACL: []string{"connection"}, Fn: commandCount},
	{Name: "info", Arity: -2, Flags: Loading | Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output_order"}, Fn: commandInfo},
	{Name: "docs", Arity: -2, Flags: Loading | Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output_order"}, Fn: commandDocs},
	{Name: "list", Arity: -2, Flags: Loading | Stale, ACL: []string{"connection"}, Tips: []string{"nondeterministic_output_order"}, Fn: commandList},
	{Name: "getkeys", Arity: -4, Flags: Loading | Stale, ACL: []string{"connection"}, Fn: commandGetKeys},
	{Name: "getkeysandflags", Arity: -4, Flags: Loading | Stale, ACL: []string{"connection"}, Fn: commandGetKeysAndFlags},
	{Name: "help", Arity: 2, Flags: Loading | Stale, ACL: []string{"connection"}, Fn: commandHelp},
}

var commandCommands = []*Spec{
	{Name: "command", Arity: -1, Flags: Loading | Stale, ACL: []string{"connection"}, Sub: commandSubs, Tips: []string{"nondeterministic_output_order"}, Fn: commandAll},
}

func init() { Register(commandCommands) }

// command helpers

// aclCategories in Redis's order (ACLCommandCategories).
var aclCategories = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash",
	"string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting"}

// Categories returns the command's ACL categories as COMMAND INFO lists
// them: its own and those Redis adds from the flags
// (setImplicitACLCategories), in Redis's order.
func (s *Spec) Categories() []string {
	implied := s.impliedCategories()
	out := make([]string, 0, len(s.ACL)+len(implied))
	for _, c := range aclCategories {
		if slices.Contains(s.ACL, c) || slices.Contains(implied, c) {
			out = append(out, c)
		}
	}
	return out
}

// impliedCategories are the ACL categories Redis's
// setImplicitACLCategories adds from the flags.
func (s *Spec) impliedCategories() []string {
	var out []string
	f := s.Flags
	if f&Write != 0 {
		out = append(out, "write")
	}
	if f&ReadOnly != 0 && !slices.Contains(s.ACL, "scripting") {
		out = append(out, "read")
	}
	if f&Admin != 0 {
		out = append(out, "admin", "dangerous")
	}
	if f&PubSub != 0 {
		out = append(out, "pubsub")
	}
	if f&Fast != 0 {
		out = append(out, "fast")
	}
	if f&Blocking != 0 {
		out = append(out, "blocking")
	}
	if f&Fast == 0 && !slices.Contains(s.ACL, "fast") {
		out = append(out, "slow")
	}
	return out
}

// movable reports whether COMMAND shows spec as movablekeys: its key specs
// are not plain ranges (Register checks that exactly these have Keys).
func movable(s *Spec) bool { return s.movableFromSpecs() }

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

// legacyRange is the (first, last, step) COMMAND reports.
func legacyRange(s *Spec) (int64, int64, int64) {
	return int64(s.first), int64(s.last), int64(s.step)
}

// writeKeySpecs writes s's key specs as Redis's addReplyCommandKeySpecs.
func writeKeySpecs(c *Ctx, s *Spec) {
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
		case BeginIndex:
			c.W.BulkString("index")
			c.W.BulkString("spec")
			c.W.Map(1)
			c.W.BulkString("index")
			c.W.Int(int64(ks.Pos))
		case BeginKeyword:
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
		case FindRange:
			c.W.BulkString("range")
			c.W.BulkString("spec")
			c.W.Map(3)
			c.W.BulkString("lastkey")
			c.W.Int(int64(ks.LastKey))
			c.W.BulkString("keystep")
			c.W.Int(int64(ks.KeyStep))
			c.W.BulkString("limit")
			c.W.Int(int64(ks.Limit))
		case FindKeyNum:
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
func writeKeyFlags(c *Ctx, f KeyFlag) {
	names := f.Names()
	c.W.Set(len(names))
	for _, n := range names {
		c.W.Status(n)
	}
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
	for _, c := range s.Categories() {
		switch c {
		case "string", "list", "set", "hash", "stream", "geo", "hyperloglog", "bitmap", "pubsub", "transaction", "scripting", "connection":
			return c
		case "sortedset":
			return "sorted-set"
		}
	}
	if s.first > 0 {
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
				for _, x := range s.Categories() {
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
	notKey := s.onlyNotKeys()
	if notKey {
		pos = nil
	}
	if len(pos) == 0 {
		if (s.first > 0 || s.Keys != nil) && !notKey {
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
	flags := s.keyFlags(cmd, pos)
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

func commandHelp(c *Ctx, args [][]byte) { replyHelp(c, "command", commandHelpLines) }
