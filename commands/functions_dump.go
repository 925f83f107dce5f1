package commands

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/lockkv/lockkv/luaengine"
)

// FUNCTION DUMP and RESTORE. The payload is what Redis 7.0 writes: per
// library the RDB opcode FUNCTION2 and the library code as an RDB string
// (LZF-compressed when that saves space, as rdbcompression does), then
// the RDB version (10) and a CRC64 (Jones) of everything before, both
// little-endian.

func init() {
	RegisterSub("function", []*Spec{
		{Name: "dump", Arity: 2, Flags: NoScript, ACL: []string{"slow", "scripting"}, Fn: functionDump},
		{Name: "restore", Arity: -3, Flags: Write | DenyOOM | NoScript, ACL: []string{"write", "slow", "scripting"}, Fn: functionRestore},
	})
}

const (
	rdbOpcodeFunction2     = 245
	rdbOpcodeFunctionPreGA = 246
	rdbVersion             = 10
)

var crc64Table = func() (t [256]uint64) {
	for i := range t {
		crc := uint64(i)
		for j := 0; j < 8; j++ {
			if crc&1 == 1 {
				crc = crc>>1 ^ 0x95AC9329AC4BC9B5
			} else {
				crc >>= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// crc64 is Redis's crc64 (Jones polynomial, reflected, no inversion).
func crc64(crc uint64, b []byte) uint64 {
	for _, c := range b {
		crc = crc64Table[byte(crc)^c] ^ crc>>8
	}
	return crc
}

func rdbAppendLen(b []byte, n int) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		b = append(b, 0x80)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, 0x81)
	return binary.BigEndian.AppendUint64(b, uint64(n))
}

// rdbAppendString is rdbSaveRawString for a string that is not an integer.
func rdbAppendString(b []byte, s []byte) []byte {
	if len(s) > 20 {
		if c := lzfCompress(s, len(s)-4); c != nil {
			b = append(b, 0xC3)
			b = rdbAppendLen(b, len(c))
			b = rdbAppendLen(b, len(s))
			return append(b, c...)
		}
	}
	b = rdbAppendLen(b, len(s))
	return append(b, s...)
}

// lzfCompress is liblzf's lzf_compress as Redis builds it (HLOG 16,
// VERY_FAST): nil when the result would not fit in outLen bytes.
func lzfCompress(in []byte, outLen int) []byte {
	const (
		hlog   = 16
		hsize  = 1 << hlog
		maxLit = 1 << 5
		maxOff = 1 << 13
		maxRef = (1 << 8) + (1 << 3)
	)
	if len(in) == 0 || outLen == 0 {
		return nil
	}
	htab := make([]int32, hsize) // positions + 1; 0 = empty
	out := make([]byte, outLen)
	inEnd := len(in)
	ip, op := 0, 0
	idx := func(h uint32) uint32 { return ((h >> (3*8 - hlog)) - h*5) & (hsize - 1) }
	lit := 0
	op++ // start run
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := idx(hval)
		ref := int(htab[slot]) - 1
		htab[slot] = int32(ip + 1)
		off := ip - ref - 1
		if ref >= 0 && ref < ip && off < maxOff && ip+4 < inEnd && ref > 0 &&
			in[ref] == in[ip] && in[ref+1] == in[ip+1] && in[ref+2] == in[ip+2] {
			length := 2
			maxlen := inEnd - ip - length
			if maxlen > maxRef {
				maxlen = maxRef
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			if lit == 0 {
				op-- // undo run if length is zero
			}
			if op+3+1 >= outLen {
				return nil
			}
			for {
				length++
				if !(length < maxlen && in[ref+length] == in[ip+length]) {
					break
				}
			}
			length -= 2 // length is now #octets - 1
			ip++
			if length < 7 {
				out[op] = byte(off>>8) + byte(length<<5)
				op++
			} else {
				out[op] = byte(off>>8) + 7<<5
				out[op+1] = byte(length - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += length + 1
			if ip >= inEnd-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			htab[idx(hval)] = int32(ip + 1)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab[idx(hval)] = int32(ip + 1)
			ip++
			continue
		}
		if op >= outLen {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == maxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > outLen {
		return nil
	}
	for ip < inEnd {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == maxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return out[:op]
}

// lzfMaxExpansion bounds what lzf_decompress makes of n bytes: a
// back-reference of 3 bytes copies at most 264.
const lzfMaxExpansion = 88

// lzfDecompress is lzf_decompress; nil on corrupt input. outLen comes from
// the payload: output is allocated as it is produced, never all at once.
func lzfDecompress(in []byte, outLen int) []byte {
	if outLen < 0 || outLen > lzfMaxExpansion*len(in) {
		return nil
	}
	out := make([]byte, 0, min(outLen, 4*len(in)))
	for ip := 0; ip < len(in); {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 {
			ctrl++
			if ip+ctrl > len(in) || len(out)+ctrl > outLen {
				return nil
			}
			out = append(out, in[ip:ip+ctrl]...)
			ip += ctrl
			continue
		}
		length := ctrl >> 5
		ref := len(out) - ((ctrl & 0x1f) << 8) - 1
		if length == 7 {
			if ip >= len(in) {
				return nil
			}
			length += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil
		}
		ref -= int(in[ip])
		ip++
		length += 2
		if ref < 0 || len(out)+length > outLen {
			return nil
		}
		for i := 0; i < length; i++ {
			out = append(out, out[ref+i])
		}
	}
	if len(out) != outLen {
		return nil
	}
	return out
}

func functionDump(c *Ctx, args [][]byte) {
	fs := c.E.scripts().fns()
	var b []byte
	for _, lib := range fs.order {
		b = append(b, rdbOpcodeFunction2)
		b = rdbAppendString(b, []byte(lib.Code))
	}
	b = append(b, rdbVersion, 0)
	b = binary.LittleEndian.AppendUint64(b, crc64(0, b))
	c.W.Bulk(b)
}

// rdbReadLen reads an RDB length; ok is false on truncated input.
func rdbReadLen(b []byte) (n int, enc bool, rest []byte, ok bool) {
	if len(b) == 0 {
		return 0, false, nil, false
	}
	switch b[0] >> 6 {
	case 0:
		return int(b[0] & 0x3f), false, b[1:], true
	case 1:
		if len(b) < 2 {
			return 0, false, nil, false
		}
		return int(b[0]&0x3f)<<8 | int(b[1]), false, b[2:], true
	case 3:
		return int(b[0] & 0x3f), true, b[1:], true
	}
	switch b[0] {
	case 0x80:
		if len(b) < 5 {
			return 0, false, nil, false
		}
		return int(binary.BigEndian.Uint32(b[1:])), false, b[5:], true
	case 0x81:
		if len(b) < 9 {
			return 0, false, nil, false
		}
		n := binary.BigEndian.Uint64(b[1:])
		if n > math.MaxInt32 {
			// No payload holds that much: Redis fails to allocate or
			// to read it.
			return 0, false, nil, false
		}
		return int(n), false, b[9:], true
	}
	return 0, false, nil, false
}

// rdbReadString reads an RDB string (raw, integer-encoded or LZF) of at
// most max bytes.
func rdbReadString(b []byte, max int) ([]byte, []byte, bool) {
	n, enc, b, ok := rdbReadLen(b)
	if !ok {
		return nil, nil, false
	}
	if !enc {
		if len(b) < n {
			return nil, nil, false
		}
		return b[:n], b[n:], true
	}
	switch n {
	case 0:
		if len(b) < 1 {
			return nil, nil, false
		}
		return []byte(itoa64(int64(int8(b[0])))), b[1:], true
	case 1:
		if len(b) < 2 {
			return nil, nil, false
		}
		return []byte(itoa64(int64(int16(binary.LittleEndian.Uint16(b))))), b[2:], true
	case 2:
		if len(b) < 4 {
			return nil, nil, false
		}
		return []byte(itoa64(int64(int32(binary.LittleEndian.Uint32(b))))), b[4:], true
	case 3:
		clen, _, b2, ok := rdbReadLen(b)
		if !ok {
			return nil, nil, false
		}
		ulen, _, b3, ok := rdbReadLen(b2)
		if !ok || len(b3) < clen || ulen > max {
			return nil, nil, false
		}
		s := lzfDecompress(b3[:clen], ulen)
		if s == nil {
			return nil, nil, false
		}
		return s, b3[clen:], true
	}
	return nil, nil, false
}

func itoa64(n int64) string {
	var buf [24]byte
	i := len(buf)
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// readPreGALibrary reads a library in the format of Redis 7.0's release
// candidates (RDB_OPCODE_FUNCTION_PRE_GA): name, engine, an optional
// description and the code, which Redis 7.0 loads as the code with a
// shebang line made from the engine and the name.
func readPreGALibrary(b []byte, max int) (code, rest []byte, errMsg string) {
	name, b, ok := rdbReadString(b, max)
	if !ok {
		return nil, nil, ErrRestoreLibraryName
	}
	engine, b, ok := rdbReadString(b, max)
	if !ok {
		return nil, nil, ErrRestoreEngineName
	}
	hasDesc, _, b, ok := rdbReadLen(b)
	if !ok {
		return nil, nil, ErrRestoreDescription
	}
	if hasDesc != 0 {
		if _, b, ok = rdbReadString(b, max); !ok {
			return nil, nil, ErrRestoreDescription
		}
	}
	body, b, ok := rdbReadString(b, max)
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
		case EqualFold(args[3], "append"):
		case EqualFold(args[3], "replace"):
			policy = "replace"
		case EqualFold(args[3], "flush"):
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
	if ver > rdbVersion || crc64(0, data[:len(data)-8]) != binary.LittleEndian.Uint64(data[len(data)-8:]) {
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
		case rdbOpcodeFunction2:
			var ok bool
			if code, rest, ok = rdbReadString(rest, max); !ok {
				errMsg = ErrRestoreLibrary
			}
		case rdbOpcodeFunctionPreGA:
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
