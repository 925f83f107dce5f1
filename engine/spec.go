package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Flag is a command flag, named as in Redis's command table.
type Flag uint32

// Command flags.
const (
	Write           Flag = 1 << iota // modifies the keyspace; replicated
	ReadOnly                         // reads the keyspace only
	DenyOOM                          // may grow memory
	Admin                            // administrative
	PubSub                           // pub/sub related
	NoScript                         // refused inside scripts
	Blocking                         // may block the client
	Loading                          // allowed while loading
	Stale                            // allowed on a stale replica
	SkipMonitor                      // not shown by MONITOR
	SkipSlowlog                      // not logged by SLOWLOG
	Fast                             // O(1) or O(log N)
	NoAuth                           // allowed before AUTH
	MayReplicate                     // may replicate (PUBLISH, ...)
	NoMulti                          // refused inside MULTI
	AllowBusy                        // allowed while a script is busy
	Sentinel                         // sentinel command
	NoMandatoryKeys                  // key arguments are optional
	NoAsyncLoading                   // refused while loading asynchronously
	Protected                        // gated by enable-debug-command (CMD_PROTECTED; hidden from COMMAND)
)

var flagNames = []struct {
	f    Flag
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"},
	{Admin, "admin"}, {PubSub, "pubsub"}, {NoScript, "noscript"},
	{Blocking, "blocking"}, {Loading, "loading"}, {Stale, "stale"},
	{SkipMonitor, "skip_monitor"}, {SkipSlowlog, "skip_slowlog"},
	{Fast, "fast"}, {NoAuth, "no_auth"},
	// may_replicate and sentinel are hidden from COMMAND, as in Redis.
	{NoMandatoryKeys, "no_mandatory_keys"}, {NoAsyncLoading, "no_async_loading"},
	{NoMulti, "no_multi"}, {AllowBusy, "allow_busy"},
}

// FlagNames returns the names of the flags set in f, in Redis's order.
func (f Flag) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// Handler executes one command. args[0] is the command name as sent.
// Arity has been checked before a handler runs.
type Handler func(c *Ctx, args [][]byte)

// Spec declares one command: the command table is the one place a command
// exists, and every fact about a command is a field of its entry (no code
// elsewhere chooses behaviour by comparing a command's name). Arity follows
// Redis: N means exactly N arguments including the name, -N means at least
// N.
type Spec struct {
	Name  string // lower case; "config|get" style for subcommands is derived
	Arity int
	Flags Flag
	Fn    Handler
	// Keys, when set, returns the key positions for commands whose keys are
	// not one range (EVAL, ZUNIONSTORE, ...): Redis's movablekeys.
	Keys func(args [][]byte) []int
	// ACL categories without the '@' that Redis lists for the command
	// ("keyspace", "string", "dangerous", ...), never those the flags
	// imply (write, read, admin, pubsub, fast, slow, blocking: see
	// Categories).
	ACL []string
	// KeySpecs are Redis 7's key specs for the command, in Redis's order
	// (COMMAND INFO, COMMAND GETKEYSANDFLAGS). The legacy key range
	// (COMMAND's first/last/step, and the key positions of a command
	// without Keys) is derived from them as Redis derives it.
	KeySpecs []KeySpec
	// GetKeyFlags, when set, gives the flags of the key at argument pos
	// for a command whose flags depend on its arguments (Redis's
	// getkeys_proc: SET with GET, BITFIELD with only GETs, SORT's STORE).
	GetKeyFlags func(args [][]byte, pos int) KeyFlag
	// Tips are the command tips COMMAND INFO reports, in Redis's order.
	Tips []string
	// Doc is the COMMAND DOCS reply of a command Redis 7.0 lacks (Origin
	// other than OriginRedis70); Redis's own are recorded (admin/docs.go).
	Doc *Doc
	// Origin says where the command comes from: Redis 7.0 (the zero
	// value), a later Redis, or lockkv.
	Origin Origin
	// ClusterOnly marks a command that exists only in cluster mode
	// (SENTINEL): a standalone server treats it as unknown, as Redis does.
	ClusterOnly bool
	// Repl is how the replication gate treats the command; ReplAuto (the
	// zero value) derives it from Flags (see Register).
	Repl ReplClass
	// LeaderGate, when set, runs a ReplWrite command on a cluster's
	// leader instead of proposing it, and reports whether it took the
	// command over (MIGRATE: the transfer runs on the leader alone and
	// only its deletions are proposed).
	LeaderGate func(c *Ctx, args [][]byte) bool
	// ScriptSort sorts the reply for scripts applied from the log (Redis's
	// CMD_SORT_FOR_SCRIPT): its order follows a hash table's layout.
	ScriptSort SortMode
	// NodeLocal: the command's answer describes the node that runs it,
	// not the replicated state (INFO, MEMORY STATS, OBJECT FREQ, CLUSTER
	// NODES, PUBSUB NUMSUB, ...): the nodes of a cluster answer it
	// differently, and the applied entry's time and seed do not make
	// them agree. In a script applied from a cluster's log no write may
	// follow it (scriptGate; DESIGN.md, "Scripts in the log"). Declared
	// on subcommands, never on their container.
	NodeLocal bool
	// Subscribed: the command may run in a RESP2 subscribed context.
	Subscribed bool
	// Unqueued: inside MULTI the command runs at once instead of being
	// queued.
	Unqueued bool
	// OOMInMulti: inside MULTI the command is not refused when over
	// maxmemory (everything else is: queueing takes memory).
	OOMInMulti bool
	// Txn is the command's part in MULTI/EXEC.
	Txn TxnRole
	// Fwd is what a forwarding follower must know of the command's
	// effect on the client's connection to the leader (Ctx.forward).
	Fwd FwdRole
	// Script says the command runs a script, and how it names it.
	Script ScriptKind
	// Redact reports whether MONITOR shows argument i as "(redacted)"
	// (Redis's redactClientCommandArgument: passwords).
	Redact func(args [][]byte, i int) bool
	// KeepCaching: CLIENT CACHING YES/NO lasts past this command (a
	// container: its subcommands), as Redis's resetClient spares the
	// CLIENT command.
	KeepCaching bool
	// Sub holds the subcommands of a container command (CONFIG, CLIENT, ...);
	// the container's Fn is not called when Sub is set.
	Sub []*Spec

	parent *Spec
	subs   map[string]*Spec
	// idx numbers every spec, subcommands included, for per-engine
	// statistics (INFO commandstats).
	idx int
	// repl is Repl resolved (ReplAuto derived from Flags).
	repl replKind
	// first, last and step are the legacy key range derived from
	// KeySpecs (populateCommandLegacyRangeSpec): first 0 for none, last
	// negative counting from the end.
	first, last, step int
}

// KeyRange returns the legacy key range COMMAND reports (first key, last
// key, step), derived from the key specs; 0, 0, 0 for none.
func (s *Spec) KeyRange() (first, last, step int) { return s.first, s.last, s.step }

// Origin is where a command comes from.
type Origin uint8

const (
	OriginRedis70 Origin = iota // Redis 7.0.15 has it
	OriginRedis72               // Redis 7.2's, answered as 7.2 does
	OriginLockkv                // lockkv's own (RAFT.NODE)
)

// ReplClass is how the replication gate treats a command.
type ReplClass uint8

const (
	ReplAuto   ReplClass = iota // Write or MayReplicate: ReplWrite; ReadOnly: ReplRead; else ReplLocal
	ReplLocal                   // runs here, reads nothing replicated
	ReplRead                    // reads the keyspace: needs a live leader
	ReplWrite                   // becomes an op
	ReplExec                    // EXEC: classified by its queue
	ReplLeader                  // local, but a forwarding follower sends it to the leader
)

// SortMode is how a reply is sorted for scripts applied from the log.
type SortMode uint8

const (
	SortNone     SortMode = iota
	SortElements          // each element (SMEMBERS, KEYS, ...)
	SortPairs             // field/value pairs by field (HGETALL)
)

// TxnRole is a command's part in MULTI/EXEC.
type TxnRole uint8

const (
	TxnNone TxnRole = iota
	TxnMulti
	TxnExec
	TxnDiscard
)

// FwdRole is a command's effect on a client's connection to the leader
// when a forwarding follower sends it there (Ctx.forward).
type FwdRole uint8

const (
	FwdNone    FwdRole = iota
	FwdWatch           // WATCH: keys watched on that connection
	FwdUnwatch         // UNWATCH: none any more
	FwdWaits           // WAIT, WAITAOF: may wait there any time (the client is held)
	FwdSelect          // SELECT: in a forwarded transaction, moves the client
	FwdHello           // HELLO: in a forwarded transaction, switches its protocol
)

// ScriptKind says whether and how a command runs a script.
type ScriptKind uint8

const (
	ScriptNone    ScriptKind = iota
	ScriptEval               // EVAL, EVAL_RO: the body is an argument
	ScriptEvalSHA            // EVALSHA, EVALSHA_RO: named by its SHA1
	ScriptFcall              // FCALL, FCALL_RO: a library function
)

// FullName is the name Redis uses in errors and COMMAND: "get", "config|get".
func (s *Spec) FullName() string {
	if s.parent != nil {
		return s.parent.Name + "|" + s.Name
	}
	return s.Name
}

// keepsCaching reports whether CLIENT CACHING survives s (KeepCaching on
// s or its container).
func (s *Spec) keepsCaching() bool {
	if s.parent != nil {
		return s.parent.KeepCaching
	}
	return s.KeepCaching
}

// Parent returns the container of a subcommand, or nil.
func (s *Spec) Parent() *Spec { return s.parent }

// Subcommand returns the subcommand named name (any case), or nil.
func (s *Spec) Subcommand(name []byte) *Spec {
	if sp, ok := s.subs[string(name)]; ok {
		return sp
	}
	return s.subs[strings.ToLower(string(name))]
}

// CheckArity reports whether argc satisfies the spec's arity.
func (s *Spec) CheckArity(argc int) bool {
	if s.Arity > 0 {
		return argc == s.Arity
	}
	return argc >= -s.Arity
}

// KeyPositions returns the argument positions holding keys.
func (s *Spec) KeyPositions(args [][]byte) []int {
	if s.Keys != nil {
		return s.Keys(args)
	}
	if s.first <= 0 || s.first >= len(args) {
		return nil
	}
	last := s.last
	if last < 0 {
		last = len(args) + last
	}
	if last >= len(args) {
		last = len(args) - 1
	}
	step := s.step
	if step <= 0 {
		step = 1
	}
	var out []int
	for i := s.first; i <= last; i += step {
		out = append(out, i)
	}
	return out
}

var table = map[string]*Spec{}

// upperTable holds the commands by their upper-case names, as most
// clients send them (Lookup).
var upperTable = map[string]*Spec{}

// Register adds command specs to the table. It panics on a duplicate name,
// so two families can never declare the same command, and on an entry
// whose facts disagree with each other (see check), so a fact cannot
// drift from the facts it depends on.
func Register(specs []*Spec) {
	for _, s := range specs {
		if s.Name != strings.ToLower(s.Name) {
			panic(fmt.Sprintf("commands: %q must be lower case", s.Name))
		}
		if _, dup := table[s.Name]; dup {
			panic(fmt.Sprintf("commands: %q registered twice", s.Name))
		}
		if err := s.check(); err != nil {
			panic("commands: " + err.Error())
		}
		if len(s.Sub) > 0 {
			s.subs = map[string]*Spec{}
			for _, sub := range s.Sub {
				if _, dup := s.subs[sub.Name]; dup {
					panic(fmt.Sprintf("commands: %s|%s registered twice", s.Name, sub.Name))
				}
				sub.parent = s
				sub.idx = nextSpecIdx()
				derive(sub)
				s.subs[sub.Name] = sub
			}
		}
		s.idx = nextSpecIdx()
		derive(s)
		table[s.Name] = s
		upperTable[strings.ToUpper(s.Name)] = s
	}
}

// check reports what is inconsistent in a top-level entry and its
// subcommands.
func (s *Spec) check() error {
	if err := s.checkOne(); err != nil {
		return err
	}
	for _, sub := range s.Sub {
		if len(sub.Sub) > 0 {
			return fmt.Errorf("%s|%s: subcommands have no subcommands", s.Name, sub.Name)
		}
		if sub.Subscribed || sub.Unqueued || sub.OOMInMulti || sub.Txn != TxnNone || sub.Script != ScriptNone || sub.KeepCaching {
			return fmt.Errorf("%s|%s: Subscribed, Unqueued, OOMInMulti, Txn, Script and KeepCaching are facts of a top-level command", s.Name, sub.Name)
		}
		if err := sub.checkOne(); err != nil {
			return fmt.Errorf("%s|%w", s.Name, err)
		}
	}
	return nil
}

// checkOne is check for one entry, its subcommands aside.
func (s *Spec) checkOne() error {
	implied := s.impliedCategories()
	for _, c := range s.ACL {
		if !slices.Contains(aclCategories, c) {
			return fmt.Errorf("%s: unknown ACL category %q", s.Name, c)
		}
		if slices.Contains(implied, c) {
			return fmt.Errorf("%s: ACL category %q is implied by the flags (Redis's setImplicitACLCategories); leave it out", s.Name, c)
		}
	}
	if (s.Doc != nil) != (s.Origin != OriginRedis70) {
		return fmt.Errorf("%s: Doc is for exactly the commands Redis 7.0 lacks (Origin), whose docs are not recorded", s.Name)
	}
	if s.Repl != ReplAuto {
		probe := Spec{Flags: s.Flags}
		derive(&probe)
		derive(s)
		if s.Repl != ReplLeader && s.repl == probe.repl {
			return fmt.Errorf("%s: Repl is what the flags give; leave it ReplAuto", s.Name)
		}
	}
	if s.NodeLocal && s.Flags&Write != 0 {
		return fmt.Errorf("%s: a write is applied on every node, so its answer cannot be NodeLocal", s.Name)
	}
	if s.NodeLocal && len(s.Sub) > 0 {
		return fmt.Errorf("%s: NodeLocal is a fact of each subcommand, not of their container", s.Name)
	}
	if s.ScriptSort != SortNone && !slices.Contains(s.Tips, "nondeterministic_output_order") {
		return fmt.Errorf("%s: a reply sorted for scripts has the nondeterministic_output_order tip", s.Name)
	}
	var keyFlags KeyFlag
	for _, ks := range s.KeySpecs {
		keyFlags |= ks.Flags
	}
	if keyFlags&KeyVariableFlags != 0 && s.GetKeyFlags == nil {
		return fmt.Errorf("%s: a key spec with variable_flags needs GetKeyFlags", s.Name)
	}
	if movable := s.movableFromSpecs(); movable != (s.Keys != nil) {
		return fmt.Errorf("%s: Keys is for exactly the commands whose key specs are not plain ranges (movablekeys: %v)", s.Name, movable)
	}
	if s.Txn != TxnNone && !s.Unqueued {
		return fmt.Errorf("%s: a transaction command runs at once inside MULTI (Unqueued)", s.Name)
	}
	if (s.Txn == TxnExec) != (s.Repl == ReplExec) {
		return fmt.Errorf("%s: EXEC, and only EXEC, is classified by its queue (Txn TxnExec, Repl ReplExec)", s.Name)
	}
	return nil
}

// derive sets what Register derives from a spec's written fields.
func derive(s *Spec) {
	s.first, s.last, s.step = s.legacyRangeFromSpecs()
	switch s.Repl {
	case ReplAuto:
		switch {
		case s.Flags&(Write|MayReplicate) != 0:
			s.repl = replWrite
		case s.Flags&ReadOnly != 0:
			s.repl = replRead
		default:
			s.repl = replLocal
		}
	case ReplLocal, ReplLeader:
		s.repl = replLocal
	case ReplRead:
		s.repl = replRead
	case ReplWrite:
		s.repl = replWrite
	case ReplExec:
		s.repl = replExec
	}
}

// Lookup returns the spec for a command name in any case, or nil.
func Lookup(name []byte) *Spec {
	names := table
	if len(name) > 0 && name[0] >= 'A' && name[0] <= 'Z' {
		names = upperTable
	}
	if s, ok := names[string(name)]; ok {
		return s
	}
	var buf [32]byte
	if len(name) <= len(buf) {
		lower := buf[:len(name)]
		for i, c := range name {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		return table[string(lower)]
	}
	return table[strings.ToLower(string(name))]
}

// All returns every top-level spec sorted by name.
func All() []*Spec {
	out := make([]*Spec, 0, len(table))
	for _, s := range table {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var specCount int

func nextSpecIdx() int {
	specCount++
	return specCount - 1
}
