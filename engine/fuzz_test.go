package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/scriptcache"
)

// Fuzzing the command table.
//
// The input is a few command lines: lines split on '\n', arguments on ' '
// (empty arguments included; %XX in an argument is the byte XX, so any
// byte can be sent). A line whose first word is no command is
// made one: the word's hash picks an entry of fuzzNames (every command
// and subcommand), so every mutation reaches some command. Script bodies
// are taken from fuzzScripts the same way (the Lua interpreter has its
// own fuzzing; here scripts are a path to redis.call), and a few
// arguments that would only make the run slow or huge are tamed
// (fuzzTame). FuzzExec checks that no command panics, that every client
// receives well-formed RESP, that the engine still answers PING, and
// that a snapshot of what the commands left restores to the same state.
// FuzzApply runs the same commands through ApplyEntry on engines whose
// hash tables differ and requires the same Engine.Digest.

const (
	fuzzMaxLines = 12
	fuzzMaxArgs  = 24
)

// fuzzNames lists every command and subcommand as a client sends it.
var fuzzNames = sync.OnceValue(func() [][]string {
	var out [][]string
	for _, s := range engine.All() {
		if len(s.Sub) == 0 {
			out = append(out, []string{s.Name})
			continue
		}
		for _, sub := range s.Sub {
			out = append(out, []string{s.Name, sub.Name})
		}
	}
	return out
})

// fuzzScripts are the scripts EVAL and SCRIPT LOAD run: the ones that
// pass their arguments to redis.call let the fuzzer reach every command
// from a script. fuzzLibraries are FUNCTION LOAD's.
var fuzzScripts = []string{
	"return redis.call(unpack(ARGV))",
	"return redis.pcall(unpack(ARGV))",
	"return {redis.call(unpack(ARGV)), redis.call('type', KEYS[1] or 'k')}",
	"#!lua flags=no-writes\nreturn redis.pcall(unpack(ARGV))",
	"redis.setresp(3) return redis.pcall(unpack(ARGV))",
	"local t = redis.pcall(unpack(ARGV)) if type(t) == 'table' then return #t end return t",
	"return cjson.encode(redis.pcall(unpack(ARGV)))",
	"return redis.call('set', KEYS[1], ARGV[1], 'px', 100)",
	"while true do end",
	"return 1",
}

var fuzzLibraries = []string{
	"#!lua name=fz\nredis.register_function('fz', function(keys, args) return redis.pcall(unpack(args)) end)\n" +
		"redis.register_function{function_name='fzro', callback=function(keys, args) return redis.pcall(unpack(args)) end, flags={'no-writes'}}",
	"#!lua name=fz2\nredis.register_function('fz2', function(keys, args) return redis.call('incr', keys[1]) end)",
}

// fuzzPick chooses one of n by word: word itself if it is a small
// number (seeds name what they want), else its hash.
func fuzzPick(word []byte, n int) int {
	if i, err := strconv.Atoi(string(word)); err == nil && i >= 0 && i < n {
		return i
	}
	h := fnv.New32a()
	h.Write(word)
	return int(h.Sum32() % uint32(n))
}

// fuzzCommands turns fuzzer bytes into commands (see above).
func fuzzCommands(data []byte) [][][]byte {
	var cmds [][][]byte
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if i == fuzzMaxLines {
			break
		}
		args := bytes.Split(line, []byte{' '})
		if len(args) > fuzzMaxArgs {
			args = args[:fuzzMaxArgs]
		}
		for j, a := range args {
			args[j] = fuzzUnescape(a)
		}
		if engine.Lookup(args[0]) == nil {
			name := fuzzNames()[fuzzPick(args[0], len(fuzzNames()))]
			head := make([][]byte, len(name))
			for j, w := range name {
				head[j] = []byte(w)
			}
			args = append(head, args[1:]...)
		}
		cmds = append(cmds, fuzzTame(args))
	}
	return cmds
}

// fuzzUnescape turns %XX (two hex digits) into the byte XX.
func fuzzUnescape(a []byte) []byte {
	if bytes.IndexByte(a, '%') < 0 {
		return a
	}
	out := make([]byte, 0, len(a))
	for i := 0; i < len(a); i++ {
		if a[i] == '%' && i+2 < len(a) {
			if b, err := strconv.ParseUint(string(a[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(b))
				i += 2
				continue
			}
		}
		out = append(out, a[i])
	}
	return out
}

// fuzzTame replaces the arguments that would only make a run slow or
// huge, as any client could send them: script bodies, DEBUG SLEEP's time,
// counts that ask for a reply of millions of elements.
func fuzzTame(args [][]byte) [][]byte {
	name := strings.ToLower(string(args[0]))
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(string(args[1]))
	}
	pick := func(i int, list []string) {
		if i < len(args) {
			args[i] = []byte(list[fuzzPick(args[i], len(list))])
		}
	}
	switch {
	case name == "eval" || name == "eval_ro":
		pick(1, fuzzScripts)
	case name == "evalsha" || name == "evalsha_ro":
		if len(args) > 1 && len(args[1]) != 40 {
			args[1] = []byte(scriptcache.SHA1Hex([]byte(fuzzScripts[fuzzPick(args[1], len(fuzzScripts))])))
		}
	case name == "script" && sub == "load":
		pick(2, fuzzScripts)
	case name == "function" && sub == "load":
		i := 2
		if len(args) > 3 && strings.EqualFold(string(args[2]), "replace") {
			i = 3
		}
		pick(i, fuzzLibraries)
	case name == "function" && sub == "restore":
		// A payload starting with '!' gets the trailer of a valid one
		// (RDB version, checksum), so the records behind it are read.
		if len(args) > 2 && len(args[2]) > 0 && args[2][0] == '!' {
			p := append(args[2][1:len(args[2]):len(args[2])], rdb.Version, 0)
			args[2] = binary.LittleEndian.AppendUint64(p, rdb.CRC64(0, p))
		}
	case name == "save" || name == "bgsave":
		// They write files (and log); conformance/save_test.go covers
		// them.
		args = [][]byte{[]byte("LASTSAVE")}
	case name == "migrate":
		// Never a real host, nor a long wait: nothing listens on port 1.
		if len(args) > 2 {
			args[1], args[2] = []byte("127.0.0.1"), []byte("1")
		}
		if len(args) > 5 {
			if n, ok := redisnum.ParseInt(args[5]); !ok || n > 100 {
				args[5] = []byte("100")
			}
		}
	case name == "restore":
		// As FUNCTION RESTORE: '!' asks for a valid trailer.
		if len(args) > 3 && len(args[3]) > 0 && args[3][0] == '!' {
			p := append(args[3][1:len(args[3]):len(args[3])], rdb.Version, 0)
			args[3] = binary.LittleEndian.AppendUint64(p, rdb.CRC64(0, p))
		}
	case name == "debug" && sub == "sleep":
		if len(args) > 2 {
			args[2] = []byte("0")
		}
	case name == "srandmember" || name == "zrandmember" || name == "hrandfield" || name == "spop":
		// A negative count repeats elements: -1e9 is a reply of a
		// billion elements, from Redis too. The extremes stay (range
		// checks).
		if len(args) > 2 {
			if n, ok := redisnum.ParseInt(args[2]); ok && (n > 1000 || n < -1000) && n != math.MinInt64 && n != math.MaxInt64 {
				args[2] = []byte(strconv.FormatInt(max(min(n, 1000), -1000), 10))
			}
		}
	}
	return args
}

// panicLog records the engine's log lines that report a panic.
type panicLog struct{ lines []string }

func (p *panicLog) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, "\n%s=%v", a.Key, a.Value)
		return true
	})
	p.lines = append(p.lines, b.String())
	return nil
}
func (p *panicLog) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *panicLog) WithGroup(string) slog.Handler      { return p }

// fuzzEngine returns an engine on a fixed clock whose log fails the test,
// with limits that keep one run small: strings of at most 64 KB, scripts
// stopped after 5 ms (a script that loops is killed, not waited for).
func fuzzEngine(t *testing.T) (*engine.Engine, *enginetest.Clock, *panicLog) {
	clock := &enginetest.Clock{T: time.UnixMilli(1_700_000_000_000)}
	log := &panicLog{}
	var e *engine.Engine
	e = enginetest.NewWith(t, engine.Options{Clock: clock, Logger: slog.New(log), OnBusy: func() { e.AbortScript() }}).E
	fuzzLimits(e)
	return e, clock, log
}

// fuzzLimits sets the limits fuzzEngine promises again (CONFIG SET may
// have changed them).
func fuzzLimits(e *engine.Engine) {
	e.Config.ProtoMaxBulkLen = 64 << 10
	e.Config.LuaTimeLimit = 5
}

// checkRESP reports what is wrong with b as a sequence of complete RESP2
// or RESP3 values, checked strictly: line types, integers, lengths, CRLF.
func checkRESP(b []byte) error {
	for len(b) > 0 {
		n, err := respValue(b, 0)
		if err != nil {
			return fmt.Errorf("%v at %q", err, b[:min(len(b), 80)])
		}
		b = b[n:]
	}
	return nil
}

func respLine(b []byte) (string, int, error) {
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return "", 0, fmt.Errorf("no CRLF")
	}
	if bytes.IndexByte(b[:i], '\n') >= 0 {
		return "", 0, fmt.Errorf("LF inside a line")
	}
	return string(b[1:i]), i + 2, nil
}

// respValue returns the length of the value b starts with.
func respValue(b []byte, depth int) (int, error) {
	if depth > 1000 {
		return 0, fmt.Errorf("nested deeper than 1000")
	}
	if len(b) == 0 {
		return 0, fmt.Errorf("truncated")
	}
	head, n, err := respLine(b)
	if err != nil {
		return 0, err
	}
	switch b[0] {
	case '+', '-':
		if strings.ContainsRune(head, '\r') {
			return 0, fmt.Errorf("CR inside a simple string")
		}
		return n, nil
	case ':':
		if _, err := strconv.ParseInt(head, 10, 64); err != nil {
			return 0, fmt.Errorf("bad integer %q", head)
		}
		return n, nil
	case '(':
		if _, ok := new(big.Int).SetString(head, 10); !ok {
			return 0, fmt.Errorf("bad big number %q", head)
		}
		return n, nil
	case ',':
		switch head {
		case "inf", "-inf", "nan", "-nan":
		default:
			if _, err := strconv.ParseFloat(head, 64); err != nil {
				return 0, fmt.Errorf("bad double %q", head)
			}
		}
		return n, nil
	case '#':
		if head != "t" && head != "f" {
			return 0, fmt.Errorf("bad boolean %q", head)
		}
		return n, nil
	case '_':
		if head != "" {
			return 0, fmt.Errorf("bad null %q", head)
		}
		return n, nil
	case '$', '=', '!':
		l, err := strconv.Atoi(head)
		if err != nil || l < -1 || (l == -1 && b[0] != '$') {
			return 0, fmt.Errorf("bad length %q", head)
		}
		if l == -1 {
			return n, nil
		}
		if len(b) < n+l+2 || b[n+l] != '\r' || b[n+l+1] != '\n' {
			return 0, fmt.Errorf("bulk of %d bytes not followed by CRLF", l)
		}
		if b[0] == '=' && (l < 4 || b[n+3] != ':') {
			return 0, fmt.Errorf("verbatim string without its format")
		}
		return n + l + 2, nil
	case '*', '~', '>', '%', '|':
		l, err := strconv.Atoi(head)
		if err != nil || l < -1 || (l == -1 && b[0] != '*') {
			return 0, fmt.Errorf("bad count %q", head)
		}
		if b[0] == '%' || b[0] == '|' {
			l *= 2
		}
		for i := 0; i < l; i++ {
			k, err := respValue(b[n:], depth+1)
			if err != nil {
				return 0, err
			}
			n += k
		}
		if b[0] == '|' { // an attribute precedes a value
			k, err := respValue(b[n:], depth+1)
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown type %q", b[0])
}

// fuzzRun runs cmds on a fresh engine, two clients taking turns, and
// checks everything FuzzExec promises.
func fuzzRun(t *testing.T, cmds [][][]byte) {
	e, clock, log := fuzzEngine(t)
	var conns [2]*enginetest.Conn
	var clients [2]*engine.Client
	for i := range clients {
		conns[i] = &enginetest.Conn{}
		clients[i] = e.NewClient(conns[i])
	}
	for i, args := range cmds {
		e.ProcessBatch(clients[i%2], [][][]byte{args}, func() {})
		e.FlushOutputs()
		fuzzLimits(e)
		clock.T = clock.T.Add(time.Duration(i) * 7 * time.Millisecond)
		e.Cron()
		e.FlushOutputs()
		if len(log.lines) > 0 {
			t.Fatalf("%q logged:\n%s", args, strings.Join(log.lines, "\n"))
		}
	}
	// Whatever state the commands left (a pause, blocked clients), a new
	// client is served once the pause ends.
	e.UnpauseForTest()
	e.FlushOutputs()
	for i, c := range conns {
		if err := checkRESP(c.Out); err != nil {
			t.Fatalf("client %d: %v\ncommands: %q", i, err, cmds)
		}
	}
	probe := &enginetest.Conn{}
	pc := e.NewClient(probe)
	e.ProcessBatch(pc, [][][]byte{{[]byte("PING")}}, func() {})
	e.FlushOutputs()
	if string(probe.Out) != "+PONG\r\n" {
		t.Fatalf("PING answered %q after %q", probe.Out, cmds)
	}
	// The state the commands left snapshots and restores to itself.
	var snap bytes.Buffer
	if _, err := e.Snapshot([]byte("m")).WriteTo(&snap); err != nil {
		t.Fatal(err)
	}
	e2, _, _ := fuzzEngine(t)
	if _, err := e2.Restore(bytes.NewReader(snap.Bytes())); err != nil {
		t.Fatalf("restoring the snapshot after %q: %v", cmds, err)
	}
	if e.Digest() != e2.Digest() {
		t.Fatalf("restored state differs after %q", cmds)
	}
	if len(log.lines) > 0 {
		t.Fatalf("logged:\n%s", strings.Join(log.lines, "\n"))
	}
}

func FuzzExec(f *testing.F) {
	for _, s := range engine.SeedSessionsForTest() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRun(t, fuzzCommands(data))
	})
}

// fuzzNoLoops replaces the script that loops forever: in apply it is
// unkillable (see DESIGN.md), and FuzzExec covers it.
func fuzzNoLoops(cmds [][][]byte) [][][]byte {
	for _, args := range cmds {
		for j, a := range args {
			if string(a) == "while true do end" {
				args[j] = []byte("return 1")
			}
		}
	}
	return cmds
}

// cloneOps deep-copies ops: every engine applies its own copy.
func cloneOps(ops []engine.Op) []engine.Op {
	out := make([]engine.Op, len(ops))
	for i, op := range ops {
		out[i] = op
		out[i].Args = make([][][]byte, len(op.Args))
		for j, a := range op.Args {
			out[i].Args[j] = engine.CopyArgs(a)
		}
	}
	return out
}

// fuzzFollower is a replicated engine that applies entries (a follower:
// it never proposes).
func fuzzFollower(t *testing.T) (*engine.Engine, *panicLog) {
	e, _, log := fuzzEngine(t)
	e.EnableReplicationForTest(&enginetest.StubReplicator{}, 8)
	return e, log
}

// FuzzApply: a leader runs the commands for two clients as a cluster node
// does (its replication gate proposes them, its cron proposes expiry) and
// every entry it proposes is applied, in order, by the leader and by
// followers. Every node must hold the same state (Engine.Digest) after
// every entry: two followers that apply everything (a choice that depends
// on Go's map order, the clock, or anything but the entry differs between
// them), the leader (whose clients' state must not leak into what it
// applies), and one restored from a snapshot taken after command split
// (its hash tables are laid out differently, so a choice that depends on
// a table's layout differs).
func FuzzApply(f *testing.F) {
	for i, s := range engine.SeedSessionsForTest() {
		f.Add([]byte(s), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		cmds := fuzzNoLoops(fuzzCommands(data))
		if len(cmds) == 0 {
			return
		}
		leader, clock, llog := fuzzEngine(t)
		r := &enginetest.StubReplicator{}
		leader.EnableReplicationForTest(r, 7)
		leader.SetLeader(true)
		leader.Config.ReadMode = config.ReadLease
		var clients [2]*engine.Client
		for i := range clients {
			clients[i] = leader.NewClient(&enginetest.Conn{})
		}
		a, alog := fuzzFollower(t)
		c, clog := fuzzFollower(t)
		var b *engine.Engine
		var blog *panicLog
		at := int(split) % len(cmds)
		index := uint64(0)
		// commit applies what the leader proposed, on every node, until
		// applying proposes nothing more (a served client goes on).
		commit := func(what []byte) {
			for round := 0; round < 8 && len(r.Ops) > 0; round++ {
				ops := r.Ops
				r.Ops = nil
				index++
				now, seed := leader.NowMs(), index*0x9e3779b97f4a7c15
				for _, e := range []*engine.Engine{a, b, c} {
					if e != nil {
						// CONFIG SET is a node's own: the leader's
						// settings that shape what apply does travel
						// in its ops (ApplySettings).
						e.ApplyEntry(index, now, seed, nil, cloneOps(ops))
						fuzzLimits(e)
					}
				}
				leader.ApplyEntry(index, now, seed, nil, ops)
				leader.FlushOutputs()
				fuzzLimits(leader)
				want := leader.Digest()
				for name, e := range map[string]*engine.Engine{"a follower": a, "another follower": c, "the restored follower": b} {
					if e != nil && e.Digest() != want {
						t.Fatalf("after %q, entry %d (%s): %s differs from the leader", what, index, fmtOps(ops), name)
					}
				}
				for _, l := range []*panicLog{llog, alog, blog, clog} {
					if l != nil && len(l.lines) > 0 {
						t.Fatalf("entry %d (%s) logged:\n%s", index, fmtOps(ops), strings.Join(l.lines, "\n"))
					}
				}
			}
		}
		for i, args := range cmds {
			if i == at {
				var snap bytes.Buffer
				if _, err := a.Snapshot(nil).WriteTo(&snap); err != nil {
					t.Fatal(err)
				}
				b, blog = fuzzFollower(t)
				if _, err := b.Restore(bytes.NewReader(snap.Bytes())); err != nil {
					t.Fatal(err)
				}
				b.SetLastEntryTime(a.LastEntryTime())
			}
			what := bytes.Join(args, []byte(" "))
			leader.ProcessBatch(clients[i%2], [][][]byte{args}, func() {})
			leader.FlushOutputs()
			fuzzLimits(leader)
			commit(what)
			clock.T = clock.T.Add(time.Duration(i) * 7 * time.Millisecond)
			leader.Cron()
			leader.FlushOutputs()
			commit([]byte("expiry"))
		}
	})
}

func fmtOps(ops []engine.Op) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "%d%q ", op.Kind, op.Args)
	}
	return b.String()
}
