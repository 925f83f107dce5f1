package luaengine

import (
	"strconv"
	"time"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// Steps: what a script does, counted.
//
// A script applied from a cluster's log runs on every node and again at
// every restart, and nothing can stop it on one node alone (SCRIPT KILL
// would leave that node's keyspace different from the others'). So a
// replicated run has a budget of steps (Run.MaxSteps), a count rather
// than a time or a measure of memory, so that a script fails at the same
// point on every node: it bounds both how long a script runs and how
// much it can allocate.
//
// Steps are counted where a script can repeat work:
//
//   - Check points. The rewrite pass puts one at the top of every loop
//     body and function body (nothing else jumps backwards in Lua 5.1), and
//     it is charged the static weight of the code it guards: each
//     statement and expression once, plus what that code can allocate
//     (codeWeight). So a loop whose body holds a thousand statements
//     costs a thousand steps an iteration, and an iteration can allocate
//     at most what its steps allow.
//   - Library functions whose work or result grows with their arguments
//     charge for it: one step per stepBytes bytes of a string they build
//     (string.rep, table.concat, `..` chains, gsub, format, the encoders,
//     a command's reply), one per value they push or table slot they
//     fill or move (unpack, string.byte, table.insert, table.sort, the
//     decoders), the work of a pattern match, a coroutine's stacks.
//
// What a single redis.call does inside the command is the command's own
// work, charged only by its reply's size (see DESIGN.md).
//
// The slow path also runs the busy-reply-threshold checks (SCRIPT KILL,
// serving other clients) every busyPeriod steps, reading the clock only
// once a script reaches a check point.

// stepBytes is how many bytes of allocation one step pays for.
const stepBytes = 4

// Steps charged for work that takes longer than a step of the
// interpreter (about 60 ns here) or allocates more than its steps pay
// for: a check point's own call, a call of the pattern matcher's
// recursion, a redis.call, an element moved in a table, a byte compiled
// by loadstring (the syntax pass, the rewrite
// and gopher-lua's compiler: about 1 µs and 30 bytes a byte), a key
// placed in a table's layout (lua51: some 60 bytes a key).
const (
	// stepsPerCheck is the check point's own call: `while true do end`
	// is nothing but check points.
	stepsPerCheck = 2
	stepsPerMatch = 5
	// stepsPerCall is a redis.call's own work in luaengine (its
	// arguments, the reply's conversion), besides the reply's bytes; the
	// command's own work is more (a lock script's few calls stay some
	// hundred steps).
	stepsPerCall = 20
	// stepsPerMove is an element table.insert or table.remove moves (a
	// logged store).
	stepsPerMove     = 2
	stepsPerByteLoad = 10
	stepsPerKeyOrder = 16
)

// chargeStride is how many bytes a function building a string piece by
// piece (gsub, the encoders) appends between two charges.
const chargeStride = 4096

// busyPeriod is how many steps pass between two busy-reply-threshold
// checks (a clock reading each).
const busyPeriod = 4096

// Static weights of allocating code (codeWeight), in steps: an upper
// bound of what gopher-lua allocates, in bytes, divided by stepBytes.
const (
	weightTable = 128 / stepBytes // a table (LTable and its first parts)
	// weightSlot is a table slot under any key: a string key's hash
	// entry, its place in the key list and index map, growth slack.
	weightSlot = 256 / stepBytes
	// weightArraySlot is a slot of an array part (an interface value).
	weightArraySlot = 16 / stepBytes
	weightClosure   = 128 / stepBytes // a closure and its upvalues
	weightNumber    = 16 / stepBytes  // a number boxed in an interface
	// weightThread is a coroutine: its state, first Lua stack and call
	// frames (coOptions).
	weightThread = 16384 / stepBytes
)

// errKilled is the error a killed script ends with.
const errKilled = "Script killed by user with SCRIPT KILL..."

// ReplicatedMaxSteps is the step budget of every script run a cluster
// applies from its log (EVAL, EVALSHA, FCALL, and the code FUNCTION LOAD
// and FUNCTION RESTORE run). It is a constant of the log's meaning, not a
// setting: a node that counted to another budget would end a script where
// the others do not (see DESIGN.md, "Scripts in the log"). At about 50 to
// 150 ns a step it bounds a runaway to a second or two of every node's
// time and to some tens of MB of allocation; the lock scripts of
// Redisson, redsync and lockscripts/ take under a thousand.
const ReplicatedMaxSteps = 10_000_000

// StepBudgetError is the error (without "ERR ") of a run that took more
// than limit steps.
func StepBudgetError(limit uint64) string {
	return "Script exceeded the step budget of replicated scripts (" + strconv.FormatUint(limit, 10) + " steps)"
}

// startSteps resets the counts for a run with busy-reply-threshold checks
// (busy) and maxSteps left (0: none) of budget.
func (e *Engine) startSteps(busy bool, maxSteps, budget uint64) {
	e.checking = busy
	e.killing = false
	e.start = time.Time{}
	e.steps = 0
	e.stepLimit = maxSteps
	e.budget = budget
	if budget == 0 {
		e.budget = maxSteps
	}
	if maxSteps == 0 {
		e.stepLimit = ^uint64(0)
	}
	e.nextBusy = ^uint64(0)
	if busy {
		e.nextBusy = 0 // the first check point starts the clock
	}
	e.nextCheck = e.nextBusy
	if e.stepLimit < e.nextCheck {
		e.nextCheck = e.stepLimit + 1
	}
}

// tick is the check point the rewriter puts at the top of every loop body
// and function body, called with the body's weight (codeWeight).
func (e *Engine) tick(L *lua.LState) int {
	w := uint64(1)
	if n, ok := L.Get(1).(lua.LNumber); ok && n > 1 {
		w = uint64(n)
	}
	e.checkpoint(L, w+stepsPerCheck)
	return 0
}

// checkpoint is a check point that charges w steps: the stack depth is
// checked, then the budget, SCRIPT KILL and busy-reply-threshold once
// the steps reach nextCheck.
func (e *Engine) checkpoint(L *lua.LState, w uint64) {
	e.checkDepth(L)
	e.steps += w
	if e.steps >= e.nextCheck {
		e.slowCheck(L)
	}
}

// charge counts n steps of work a library function does (or is about to
// do) and fails the script once it is over its budget. It never reads
// the clock: a script with no check point (a lock script) never does.
func (e *Engine) charge(L *lua.LState, n int) {
	e.steps += uint64(n)
	if e.steps > e.stepLimit {
		e.overBudget(L)
	}
}

// chargeBytes charges for n bytes a library function builds.
func (e *Engine) chargeBytes(L *lua.LState, n int) {
	e.charge(L, n/stepBytes+1)
}

// overBudget fails the script: Redis's runtime error form, raised again
// at every later check point and charge (the steps stay over the limit),
// so pcall cannot keep the script going.
func (e *Engine) overBudget(L *lua.LState) {
	raise(L, StepBudgetError(e.budget))
}

// slowCheck is the check point's slow path.
func (e *Engine) slowCheck(L *lua.LState) {
	if e.steps > e.stepLimit {
		e.overBudget(L)
	}
	if e.steps >= e.nextBusy {
		e.nextBusy = e.steps + busyPeriod
		e.busyCheck(L)
	}
	e.nextCheck = e.nextBusy
	if e.stepLimit < e.nextCheck {
		e.nextCheck = e.stepLimit + 1
	}
}

// busyCheck is the busy-reply-threshold check: once the script has run
// longer, the host serves other clients (WhileBusy) and SCRIPT KILL can
// stop it.
func (e *Engine) busyCheck(L *lua.LState) {
	run := e.run
	if run == nil || !e.checking {
		return
	}
	if e.killing {
		raise(L, errKilled)
	}
	if e.start.IsZero() {
		e.start = time.Now()
		return
	}
	if time.Since(e.start) < run.BusyThreshold {
		return
	}
	if e.loading != nil {
		e.killing = true
		e.nextBusy = e.steps
		raise(L, "FUNCTION LOAD timeout")
	}
	if run.WhileBusy != nil {
		run.WhileBusy()
	}
	if run.Killed != nil && run.Killed() {
		// From now on every check point fails, so pcall cannot keep a
		// killed script alive.
		e.killing = true
		e.nextBusy = e.steps
		raise(L, errKilled)
	}
}

// Steps returns how many steps the last run took (past its budget, when
// it ran out).
func (e *Engine) Steps() uint64 { return e.steps }

// chargeValues wraps a library function that pushes values a script
// chooses the number of (unpack, string.byte): a step for each.
func (e *Engine) chargeValues(fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := fn(L)
		e.charge(L, n)
		return n
	}
}

// chargeStrings wraps a library function whose string results are as
// long as its arguments make them (string.format, lower, upper, reverse,
// char): it is charged for their bytes.
func (e *Engine) chargeStrings(fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := fn(L)
		size := 0
		for i := L.GetTop() - n + 1; i <= L.GetTop(); i++ {
			if s, ok := L.Get(i).(lua.LString); ok {
				size += len(s)
			}
		}
		e.chargeBytes(L, size)
		return n
	}
}

// lenSteps is what the length of t (lua51.Len) costs: its array part is
// scanned for holes, and a table with other keys is laid out as Lua would
// lay it out (scanSteps).
func lenSteps(t *lua.LTable) int { return scanSteps(lua51.Parts(t)) }

// scanSteps is what a scan of an array part of array slots and a layout
// of keys keys cost (lua51's Host.Scan).
func scanSteps(array, keys int) int { return array/64 + keys*stepsPerKeyOrder }

// chargeLen wraps a library function that takes the length of its first
// argument (unpack, table.getn, table.foreachi): it is charged for it.
func (e *Engine) chargeLen(fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			e.charge(L, lenSteps(t))
		}
		return fn(L)
	}
}
