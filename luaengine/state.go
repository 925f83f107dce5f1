package luaengine

import (
	"encoding/binary"
	"errors"
)

// State is what an interpreter keeps from one script run to the next that
// a later run can observe: math.random's generator (math.randomseed
// reseeds it), the settings of the cjson table (cjson.encode_max_depth
// and the like) and collectgarbage's setpause and setstepmul values. A
// cluster node must hold the same State as every other node at the same
// point of the log: it goes into snapshots, and a run that is not applied
// from the log (EVAL_RO on the node that serves it) leaves it as it
// found it (see DESIGN.md, "Scripts in the log").
//
// The Lua values a FUNCTION library keeps in its own upvalues are not
// part of it: they cannot be captured.
type State struct {
	rand               uint64
	cjson              cjsonConfig
	gcPause, gcStepmul int32
}

// State returns the interpreter's state. A function engine shares its
// generator with the EVAL engine it was made from (NewFunctionEngine).
func (e *Engine) State() State {
	return State{rand: e.rand.x, cjson: *e.cjson, gcPause: e.gcPause, gcStepmul: e.gcStepmul}
}

// SetState makes s the interpreter's state.
func (e *Engine) SetState(s State) {
	e.rand.x = s.rand
	*e.cjson = s.cjson
	e.gcPause, e.gcStepmul = s.gcPause, s.gcStepmul
}

const stateVersion = 1

// AppendState appends s's encoding to b.
func AppendState(b []byte, s State) []byte {
	b = append(b, stateVersion)
	b = binary.AppendUvarint(b, s.rand)
	c := &s.cjson
	flags := byte(0)
	for i, f := range []bool{c.sparseConvert, c.encodeInvalid, c.decodeInvalid, c.encodeKeepBuf, c.encodeInvalidNull} {
		if f {
			flags |= 1 << i
		}
	}
	b = append(b, flags)
	for _, n := range []int64{int64(c.sparseRatio), int64(c.sparseSafe), int64(c.encodeMaxDepth), int64(c.decodeMaxDepth), int64(c.precision), int64(s.gcPause), int64(s.gcStepmul)} {
		b = binary.AppendVarint(b, n)
	}
	return b
}

var errState = errors.New("bad interpreter state")

// DecodeState decodes what AppendState wrote, all of b.
func DecodeState(b []byte) (State, error) {
	var s State
	if len(b) < 2 || b[0] != stateVersion {
		return s, errState
	}
	b = b[1:]
	v, n := binary.Uvarint(b)
	if n <= 0 || v > rand48Mask || len(b) == n {
		return s, errState
	}
	s.rand = v
	flags := b[n]
	b = b[n+1:]
	c := &s.cjson
	for i, f := range []*bool{&c.sparseConvert, &c.encodeInvalid, &c.decodeInvalid, &c.encodeKeepBuf, &c.encodeInvalidNull} {
		*f = flags&(1<<i) != 0
	}
	var nums [7]int64
	for i := range nums {
		v, n := binary.Varint(b)
		if n <= 0 || v < -1<<31 || v > 1<<31-1 {
			return s, errState
		}
		nums[i] = v
		b = b[n:]
	}
	// The bounds cjson's setters enforce.
	if len(b) != 0 || flags>>5 != 0 || nums[2] < 1 || nums[3] < 1 || nums[4] < 1 || nums[4] > 14 {
		return s, errState
	}
	c.sparseRatio, c.sparseSafe, c.encodeMaxDepth, c.decodeMaxDepth, c.precision = int(nums[0]), int(nums[1]), int(nums[2]), int(nums[3]), int(nums[4])
	s.gcPause, s.gcStepmul = int32(nums[5]), int32(nums[6])
	return s, nil
}

// DefaultState is a new interpreter's state.
func DefaultState() State {
	return State{rand: newRand48().x, cjson: *defaultCjsonConfig(), gcPause: defaultGCSetting, gcStepmul: defaultGCSetting}
}

// WithCjsonAndGC returns s with other's cjson and collectgarbage settings.
func (s State) WithCjsonAndGC(other State) State {
	s.cjson, s.gcPause, s.gcStepmul = other.cjson, other.gcPause, other.gcStepmul
	return s
}
