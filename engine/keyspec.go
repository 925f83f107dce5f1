package engine

import (
	"math"

	"github.com/lockkv/lockkv/internal/redisnum"
)

// Key specs: Redis 7's description of where a command's keys are and what
// it does with them (src/commands/*.json, "key_specs"), written in each
// table entry as Redis writes them. COMMAND INFO reports them and COMMAND
// GETKEYSANDFLAGS takes each key's flags from them.

// KeyFlag is a key-spec flag (CMD_KEY_*).
type KeyFlag uint16

// Key-spec flags, in the order Redis lists them (addReplyFlagsForKeyArgs).
const (
	KeyRO            KeyFlag = 1 << iota // read only
	KeyRW                                // read and write
	KeyOW                                // overwrite: the old value is not read
	KeyRM                                // delete
	KeyAccess                            // the value is returned, copied or used
	KeyUpdate                            // the value is updated
	KeyInsert                            // data is added, nothing is changed or removed
	KeyDelete                            // data is removed
	KeyNotKey                            // not a key (a shard channel), for cluster slots only
	KeyIncomplete                        // the spec may miss keys
	KeyVariableFlags                     // the flags depend on other arguments
)

var keyFlagNames = []struct {
	f    KeyFlag
	name string
}{
	{KeyRO, "RO"}, {KeyRW, "RW"}, {KeyOW, "OW"}, {KeyRM, "RM"},
	{KeyAccess, "access"}, {KeyUpdate, "update"}, {KeyInsert, "insert"}, {KeyDelete, "delete"},
	{KeyNotKey, "not_key"}, {KeyIncomplete, "incomplete"}, {KeyVariableFlags, "variable_flags"},
}

// Names returns the names of the flags set in f, in Redis's order.
func (f KeyFlag) Names() []string {
	var out []string
	for _, fn := range keyFlagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// BeginKind is how a key spec finds where its keys begin.
type BeginKind uint8

const (
	BeginIndex   BeginKind = iota // at argument Pos
	BeginKeyword                  // after Keyword, searched from StartFrom (negative: from the end, backwards)
	BeginUnknown                  // cannot be told from the arguments
)

// FindKind is how a key spec finds its keys from where they begin.
type FindKind uint8

const (
	FindRange   FindKind = iota // up to LastKey (relative; -1 the last argument), every KeyStep, at most count/Limit
	FindKeyNum                  // argument KeyNumIdx (relative) holds the count; keys from FirstKey (relative), every KeyStep
	FindUnknown                 // cannot be told from the arguments
)

// KeySpec is one Redis key spec.
type KeySpec struct {
	Notes string
	Flags KeyFlag

	Begin     BeginKind
	Pos       int    // BeginIndex
	Keyword   string // BeginKeyword
	StartFrom int    // BeginKeyword

	Find      FindKind
	LastKey   int // FindRange
	KeyStep   int // FindRange, FindKeyNum
	Limit     int // FindRange
	KeyNumIdx int // FindKeyNum
	FirstKey  int // FindKeyNum
}

// Key1 is the most common key spec: the key at argument 1 alone.
func Key1(f KeyFlag) KeySpec { return KeySpec{Flags: f, Pos: 1, KeyStep: 1} }

// keyPositions is the part of getKeysUsingKeySpecs for one spec: the
// positions of the keys it finds in args (args[0] the command name), nil
// when its begin or find is unknown or the arguments do not fit it.
func (ks *KeySpec) keyPositions(args [][]byte) []int {
	argc := len(args)
	var first int
	switch ks.Begin {
	case BeginIndex:
		first = ks.Pos
	case BeginKeyword:
		start, end, step := ks.StartFrom, argc-1, 1
		if start < 0 {
			start, end, step = argc+start, 0, -1
		}
		for i := start; i != end+step && i > 0 && i < argc; i += step {
			// strcasecmp: the keyword is written as COMMAND INFO shows it.
			if string(lower(args[i])) == string(lower([]byte(ks.Keyword))) {
				first = i + 1
				break
			}
		}
		if first == 0 {
			return nil
		}
	default:
		return nil
	}
	var last, step int
	switch ks.Find {
	case FindRange:
		step = ks.KeyStep
		if ks.LastKey >= 0 {
			last = first + ks.LastKey
		} else if ks.Limit <= 1 {
			last = argc + ks.LastKey
		} else {
			last = first + (argc-1-first)/ks.Limit + ks.LastKey + 1
		}
	case FindKeyNum:
		idx := first + ks.KeyNumIdx
		if idx >= argc {
			return nil
		}
		n, ok := redisnum.ParseInt(args[idx])
		if !ok || n < 0 {
			return nil
		}
		first += ks.FirstKey
		step = ks.KeyStep
		last = first + int(n-1)*step
	default:
		return nil
	}
	var out []int
	for i := first; i <= last && i < argc; i += step {
		out = append(out, i)
	}
	return out
}

func lower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// KeyFlags returns the flags of the keys at argument positions pos: what
// s's GetKeyFlags says for a command whose flags depend on its arguments,
// else those of the first key spec that finds each (Redis's
// getKeysFromCommandWithSpecs).
func (s *Spec) KeyFlags(args [][]byte, pos []int) []KeyFlag {
	out := make([]KeyFlag, len(pos))
	if s.GetKeyFlags != nil {
		for i, p := range pos {
			out[i] = s.GetKeyFlags(args, p)
		}
		return out
	}
	found := map[int]KeyFlag{}
	for i := range s.KeySpecs {
		for _, p := range s.KeySpecs[i].keyPositions(args) {
			if _, ok := found[p]; !ok {
				found[p] = s.KeySpecs[i].Flags
			}
		}
	}
	for i, p := range pos {
		out[i] = found[p]
	}
	return out
}

// OnlyNotKeys reports whether every key spec of s is for arguments that
// are not keys (shard channels): COMMAND GETKEYS reports none of them.
func (s *Spec) OnlyNotKeys() bool {
	if len(s.KeySpecs) == 0 {
		return false
	}
	for _, ks := range s.KeySpecs {
		if ks.Flags&KeyNotKey == 0 {
			return false
		}
	}
	return true
}

// legacyRangeFromSpecs is Redis 7.0's populateCommandLegacyRangeSpec:
// the (first, last, step) COMMAND reports, summed up from the index/range
// key specs that follow each other with a step of 1 (0, 0, 0 when there
// are none). last is absolute, negative counting from the end.
func (s *Spec) legacyRangeFromSpecs() (first, last, step int) {
	if len(s.KeySpecs) == 1 && s.KeySpecs[0].Begin == BeginIndex && s.KeySpecs[0].Find == FindRange {
		ks := s.KeySpecs[0]
		last = ks.LastKey
		if last >= 0 {
			last += ks.Pos
		}
		return ks.Pos, last, ks.KeyStep
	}
	first = math.MaxInt
	var lastU, prevLast uint32
	for _, ks := range s.KeySpecs {
		if ks.Begin != BeginIndex || ks.Find != FindRange {
			continue
		}
		if ks.KeyStep != 1 || (prevLast != 0 && int32(prevLast) != int32(ks.Pos-1)) {
			continue
		}
		first = min(first, ks.Pos)
		abs := ks.LastKey
		if abs >= 0 {
			abs += ks.Pos
		}
		lastU = max(lastU, uint32(int32(abs))) // unsigned, as Redis compares
		prevLast = lastU
	}
	if first == math.MaxInt {
		return 0, 0, 0
	}
	return first, int(int32(lastU)), 1
}

// movableFromSpecs reports whether the command's keys cannot be told from
// a fixed range (COMMAND's movablekeys, populateCommandMovableKeys): a
// key spec that does not begin at an index or find a range, or one that
// may miss keys. Such commands find their keys with Spec.Keys (Redis's
// getkeys procs).
func (s *Spec) movableFromSpecs() bool {
	for _, ks := range s.KeySpecs {
		if ks.Begin != BeginIndex || ks.Find != FindRange || ks.Flags&KeyIncomplete != 0 {
			return true
		}
	}
	return false
}
