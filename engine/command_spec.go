package engine

import (
	"slices"
	"strings"
)

// What COMMAND reports of a command that is derived from its table
// entry: ACL categories, flag names, the legacy key range; and the
// engine's view of the table (cluster-only commands on a cluster node).

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

// Movable reports whether COMMAND shows s as movablekeys: its key specs
// are not plain ranges (Register checks that exactly these have Keys).
func (s *Spec) Movable() bool { return s.movableFromSpecs() }

// CommandFlags are the flag names COMMAND INFO lists for s, in Redis's
// order.
func (s *Spec) CommandFlags() []string {
	var out []string
	for _, fn := range flagNames {
		if fn.f == AllowBusy && s.Movable() {
			out = append(out, "movablekeys") // Redis lists it before allow_busy
		}
		if s.Flags&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// LegacyRange is the (first, last, step) COMMAND reports, derived from
// the key specs as Redis 7.0's populateCommandLegacyRangeSpec derives it.
func (s *Spec) LegacyRange() (int64, int64, int64) {
	return int64(s.first), int64(s.last), int64(s.step)
}

// LookupFullName finds "get" or "config|get" among e's commands (a
// standalone server has no cluster-only ones).
func (e *Engine) LookupFullName(name string) *Spec {
	parent, sub, found := strings.Cut(name, "|")
	s := Lookup([]byte(parent))
	if s != nil && s.ClusterOnly && e.cluster == nil {
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

// Specs returns the commands e has, sorted by name: a standalone server
// has no cluster-only ones (SENTINEL).
func (e *Engine) Specs() []*Spec {
	all := All()
	if e.cluster != nil {
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
