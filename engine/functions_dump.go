package engine

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/rdb"
	"github.com/lockkv/lockkv/luaengine"
)

// FUNCTION DUMP and RESTORE. The payload is what Redis 7.0 writes: per
// library the RDB opcode FUNCTION2 and the library code as an RDB string
// (LZF-compressed when that saves space, as rdbcompression does), then
// the RDB version (10) and a CRC64 (Jones) of everything before, both
// little-endian.

func functionDump(c *Ctx, args [][]byte) {
	fs := c.E.scripts().fns()
	var b []byte
	for _, lib := range fs.order {
		b = append(b, rdb.OpcodeFunction2)
		b = rdb.AppendString(b, []byte(lib.Code))
	}
	b = append(b, rdb.Version, 0)
	b = binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))
	c.W.Bulk(b)
}

// readPreGALibrary reads a library in the format of Redis 7.0's release
// candidates (RDB_OPCODE_FUNCTION_PRE_GA): name, engine, an optional
// description and the code, which Redis 7.0 loads as the code with a
// shebang line made from the engine and the name.
func readPreGALibrary(b []byte, max int) (code, rest []byte, errMsg string) {
	name, b, ok := rdb.ReadString(b, max)
	if !ok {
		return nil, nil, ErrRestoreLibraryName
	}
	engine, b, ok := rdb.ReadString(b, max)
	if !ok {
		return nil, nil, ErrRestoreEngineName
	}
	hasDesc, _, b, ok := rdb.ReadLen(b)
	if !ok {
		return nil, nil, ErrRestoreDescription
	}
	if hasDesc != 0 {
		if _, b, ok = rdb.ReadString(b, max); !ok {
			return nil, nil, ErrRestoreDescription
		}
	}
	body, b, ok := rdb.ReadString(b, max)
	if !ok {
		return nil, nil, ErrRestoreBlob
	}
	code = make([]byte, 0, len(engine)+len(name)+len(body)+9)
	code = append(append(append(append(append(code, "#!"...), engine...), " name="...), name...), '\n')
	return append(code, body...), b, ""
}

func functionRestore(c *Ctx, args [][]byte) {
	if len(args) > 4 {
		c.Error(ErrSubcommandSyntax("function", args[1]))
		return
	}
	policy := "append"
	if len(args) == 4 {
		switch {
		case cstr.EqualFold(args[3], "append"):
		case cstr.EqualFold(args[3], "replace"):
			policy = "replace"
		case cstr.EqualFold(args[3], "flush"):
			policy = "flush"
		default:
			c.Error(ErrRestorePolicy)
			return
		}
	}
	data := args[2]
	if len(data) < 10 {
		c.Error(ErrDumpPayload)
		return
	}
	ver := int(binary.LittleEndian.Uint16(data[len(data)-10:]))
	if ver > rdb.Version || rdb.CRC64(0, data[:len(data)-8]) != binary.LittleEndian.Uint64(data[len(data)-8:]) {
		c.Error(ErrDumpPayload)
		return
	}
	fs := c.E.scripts().fns()
	// Load into a scratch set first, so a bad payload changes nothing.
	scratch := &functionState{lua: fs.lua, libs: map[string]*luaengine.Library{}, funcs: map[string]*luaengine.Function{}}
	// Records are read from the whole payload while more than its
	// 10-byte trailer is left, as Redis's rio does: one may run into the
	// trailer.
	max := int(min(c.E.Config.ProtoMaxBulkLen, math.MaxInt32))
	for rest := data; len(rest) > 10; {
		typ := rest[0]
		rest = rest[1:]
		var code []byte
		var errMsg string
		switch typ {
		case rdb.OpcodeFunction2:
			var ok bool
			if code, rest, ok = rdb.ReadString(rest, max); !ok {
				errMsg = ErrRestoreLibrary
			}
		case rdb.OpcodeFunctionPreGA:
			code, rest, errMsg = readPreGALibrary(rest, max)
		default:
			errMsg = ErrRestoreNotFunction
		}
		if errMsg != "" {
			c.Error(errMsg)
			return
		}
		left, budget := c.stepBudget()
		lib, errMsg := loadLibraryCode(fs, code, left, budget)
		c.spendSteps(fs.lua)
		if errMsg != "" {
			c.Error(errMsg)
			return
		}
		if scratch.libs[lib.Name] != nil {
			c.Error(ErrLibraryExists(lib.Name))
			return
		}
		for _, fn := range lib.Functions {
			if scratch.funcs[strings.ToLower(fn.Name)] != nil {
				c.Error(ErrFunctionExists(fn.Name))
				return
			}
		}
		scratch.add(lib)
	}
	if policy == "flush" {
		fs.libs, fs.order, fs.funcs = scratch.libs, scratch.order, scratch.funcs
		c.W.OK()
		return
	}
	for _, lib := range scratch.order {
		if fs.libs[lib.Name] != nil && policy != "replace" {
			c.Error("ERR Library " + lib.Name + " already exists")
			return
		}
	}
	for _, lib := range scratch.order {
		for _, fn := range lib.Functions {
			if other := fs.funcs[strings.ToLower(fn.Name)]; other != nil && (policy != "replace" || scratch.libs[other.Lib.Name] == nil) {
				c.Error("ERR Function " + fn.Name + " already exists")
				return
			}
		}
	}
	for _, lib := range scratch.order {
		if old := fs.libs[lib.Name]; old != nil {
			fs.remove(old)
		}
		fs.add(lib)
	}
	c.W.OK()
}
