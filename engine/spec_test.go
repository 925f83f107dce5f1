package engine

import (
	"strings"
	"testing"
)

// TestRegisterRefusesInconsistent: Register panics on an entry whose facts
// disagree, naming what is wrong, and leaves the table without it.
func TestRegisterRefusesInconsistent(t *testing.T) {
	nop := func(c *Ctx, args [][]byte) {}
	for _, tc := range []struct {
		spec *Spec
		want string
	}{
		{&Spec{Name: "x-implied", Arity: 1, Flags: Write, ACL: []string{"write", "string"}, Fn: nop}, `ACL category "write" is implied`},
		{&Spec{Name: "x-slow", Arity: 1, ACL: []string{"slow"}, Fn: nop}, `ACL category "slow" is implied`},
		{&Spec{Name: "x-fast", Arity: 1, Flags: Fast, ACL: []string{"fast"}, Fn: nop}, `ACL category "fast" is implied`},
		{&Spec{Name: "x-admin", Arity: 1, Flags: Admin, ACL: []string{"dangerous"}, Fn: nop}, `ACL category "dangerous" is implied`},
		{&Spec{Name: "x-read", Arity: 1, Flags: ReadOnly, ACL: []string{"read"}, Fn: nop}, `ACL category "read" is implied`},
		{&Spec{Name: "x-unknown", Arity: 1, ACL: []string{"strings"}, Fn: nop}, `unknown ACL category "strings"`},
		{&Spec{Name: "x-doc70", Arity: 1, Doc: &Doc{Summary: "s"}, Fn: nop}, "Doc is for exactly"},
		{&Spec{Name: "x-nodoc", Arity: 1, Origin: OriginRedis72, Fn: nop}, "Doc is for exactly"},
		{&Spec{Name: "x-repl", Arity: 1, Flags: Write, Repl: ReplWrite, Fn: nop}, "Repl is what the flags give"},
		{&Spec{Name: "x-repl-local", Arity: 1, Repl: ReplLocal, Fn: nop}, "Repl is what the flags give"},
		{&Spec{Name: "x-txn", Arity: 1, Txn: TxnMulti, Fn: nop}, "runs at once inside MULTI"},
		{&Spec{Name: "x-exec", Arity: 1, Txn: TxnExec, Unqueued: true, Fn: nop}, "EXEC, and only EXEC"},
		{&Spec{Name: "x-exec-repl", Arity: 1, Repl: ReplExec, Fn: nop}, "EXEC, and only EXEC"},
		{&Spec{Name: "x-sort", Arity: 2, Flags: ReadOnly, ScriptSort: SortElements, Fn: nop}, "nondeterministic_output_order"},
		{&Spec{Name: "x-varflags", Arity: 2, Flags: Write, KeySpecs: []KeySpec{Key1(KeyRW | KeyVariableFlags)}, Fn: nop}, "needs GetKeyFlags"},
		{&Spec{Name: "x-movable", Arity: -2, Flags: Write, KeySpecs: []KeySpec{{Flags: KeyRW, Pos: 1, Find: FindKeyNum, FirstKey: 1, KeyStep: 1}}, Fn: nop}, "Keys is for exactly"},
		{&Spec{Name: "x-notmovable", Arity: 2, Flags: Write, KeySpecs: []KeySpec{Key1(KeyRW)}, Keys: func([][]byte) []int { return nil }, Fn: nop}, "Keys is for exactly"},
		{&Spec{Name: "x-sub", Arity: -2, Sub: []*Spec{{Name: "s", Arity: 2, Script: ScriptEval, Fn: nop}}}, "x-sub|s: Subscribed"},
		{&Spec{Name: "x-subacl", Arity: -2, Sub: []*Spec{{Name: "s", Arity: 2, Flags: Fast, ACL: []string{"fast"}, Fn: nop}}}, `x-subacl|s: ACL category "fast"`},
	} {
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg, _ = r.(string)
				}
			}()
			Register([]*Spec{tc.spec})
			return ""
		}()
		if !strings.Contains(got, tc.want) {
			t.Errorf("Register(%s): panic %q, want one containing %q", tc.spec.Name, got, tc.want)
		}
		if Lookup([]byte(tc.spec.Name)) != nil {
			t.Errorf("Register(%s) panicked but left the entry in the table", tc.spec.Name)
		}
	}
}

// TestTableConsistent: every registered entry passes Register's checks
// (they ran at init) and the facts derived from them hold.
func TestTableConsistent(t *testing.T) {
	for _, s := range All() {
		if err := s.check(); err != nil {
			t.Error(err)
		}
		for _, x := range append([]*Spec{s}, s.Sub...) {
			if x.Repl == ReplLeader && x.repl != replLocal {
				t.Errorf("%s: ReplLeader runs locally", x.FullName())
			}
			if x.Txn == TxnExec && x.repl != replExec {
				t.Errorf("%s: EXEC's class is not replExec", x.FullName())
			}
		}
	}
}

// TestKeyFlagsCoverKeys: for every command line of the fuzz seeds (every
// family, their options), each key the command's key positions name gets
// flags from a key spec or GetKeyFlags: GETKEYSANDFLAGS never answers a
// key without flags, and the key specs find what the positions find.
func TestKeyFlagsCoverKeys(t *testing.T) {
	checked := 0
	for _, session := range fuzzSeeds {
		for _, line := range strings.Split(session, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			args := make([][]byte, len(f))
			for i, a := range f {
				args[i] = []byte(a)
			}
			s := LookupArgs(args)
			if s == nil || !s.CheckArity(len(args)) {
				continue
			}
			pos := s.KeyPositions(args)
			for i, fl := range s.KeyFlags(args, pos) {
				checked++
				if fl == 0 || fl&(KeyRO|KeyRW|KeyOW|KeyRM|KeyNotKey) == 0 {
					t.Errorf("%q: key at %d has flags %v", line, pos[i], fl.Names())
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d keys checked", checked)
	}
}

// TestLegacyKeyRange: the range COMMAND reports is derived from the key
// specs as Redis 7.0.15 derives it (values from its COMMAND INFO).
func TestLegacyKeyRange(t *testing.T) {
	for name, want := range map[string][3]int{
		"get": {1, 1, 1}, "exists": {1, -1, 1}, "mset": {1, -1, 2}, "lmove": {1, 2, 1}, "rename": {1, 2, 1},
		"blpop": {1, -2, 1}, "bitop": {2, -1, 1}, "eval": {0, 0, 0}, "zunion": {0, 0, 0}, "zunionstore": {1, 1, 1},
		"sort": {1, 1, 1}, "sort_ro": {1, 1, 1}, "lmpop": {0, 0, 0}, "ping": {0, 0, 0}, "ssubscribe": {1, -1, 1},
		"smove": {1, 2, 1}, "brpoplpush": {1, 2, 1}, "zrangestore": {1, 2, 1},
	} {
		s := Lookup([]byte(name))
		if first, last, step := s.KeyRange(); [3]int{first, last, step} != want {
			t.Errorf("%s: range %d,%d,%d, Redis %v", name, first, last, step, want)
		}
	}
	if f, l, st := Lookup([]byte("object")).Subcommand([]byte("encoding")).KeyRange(); f != 2 || l != 2 || st != 1 {
		t.Errorf("object|encoding: %d,%d,%d", f, l, st)
	}
}

// TestLookupAnyCase: every command is found by its name in lower case,
// upper case (upperTable) and mixed case, and a name that is no
// command's in any case is not.
func TestLookupAnyCase(t *testing.T) {
	n := 0
	for name, s := range table {
		mixed := []byte(strings.ToUpper(name))
		for i := 1; i < len(mixed); i += 2 {
			mixed[i] = strings.ToLower(string(mixed[i : i+1]))[0]
		}
		for _, variant := range []string{name, strings.ToUpper(name), string(mixed), "X" + name[1:]} {
			got := Lookup([]byte(variant))
			if want := s; !strings.EqualFold(variant, name) {
				want = table[strings.ToLower(variant)]
				if got != want {
					t.Errorf("Lookup(%q) = %v, want %v", variant, got, want)
				}
			} else if got != want {
				t.Errorf("Lookup(%q) = %v, want %s", variant, got, name)
			}
		}
		n++
	}
	if n < 200 || len(upperTable) != len(table) {
		t.Fatalf("%d commands, %d upper-case names", n, len(upperTable))
	}
	for _, name := range []string{"", "NOSUCH", "nosuch", "GeT2", strings.Repeat("A", 40)} {
		if s := Lookup([]byte(name)); s != nil {
			t.Errorf("Lookup(%q) = %s", name, s.Name)
		}
	}
}
