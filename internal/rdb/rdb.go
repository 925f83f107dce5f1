// Package rdb reads and writes Redis 7.0's RDB format (version 10): the
// DUMP/RESTORE and FUNCTION DUMP/RESTORE payloads and whole RDB files
// (SAVE, and loading a redis-server dump.rdb). It holds lengths and
// strings as rdb.c encodes them, liblzf's compression as Redis builds it,
// Redis's CRC64 (crc64.c), listpacks and ziplists, and every value type.
//
// Output is byte-identical to redis-server 7.0.15's where lockkv's value
// carries what Redis's bytes depend on (see AppendValue); every RDB type
// Redis 7.0 loads is read, streams and module values excepted (lockkv
// has neither). Every reader treats its input as hostile: whatever the
// input, a value or an error, never a panic, and a length the input
// cannot back is refused before anything of its size is allocated.
package rdb

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync"

	"github.com/lockkv/lockkv/internal/redisnum"
)

// Version is the RDB version Redis 7.0 writes (RDB_VERSION).
const Version = 10

// Opcodes of function records (RDB_OPCODE_FUNCTION2 and Redis 7.0's
// release candidates' RDB_OPCODE_FUNCTION_PRE_GA).
const (
	OpcodeFunction2     = 245
	OpcodeFunctionPreGA = 246
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

// CRC64 is Redis's crc64 (Jones polynomial, reflected, no inversion).
func CRC64(crc uint64, b []byte) uint64 {
	for _, c := range b {
		crc = crc64Table[byte(crc)^c] ^ crc>>8
	}
	return crc
}

// AppendLen appends n as rdbSaveLen encodes a length.
func AppendLen(b []byte, n int) []byte {
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

// AppendString is rdbSaveRawString: an integer form for short canonical
// integers, LZF when that saves at least 4 bytes (rdbcompression yes),
// else the length and the bytes.
func AppendString(b, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := redisnum.ParseInt(s); ok {
			if nb, ok := appendEncodedInt(b, v); ok {
				return nb
			}
		}
	}
	if len(s) > 20 {
		if c := LZFCompress(s, len(s)-4); c != nil {
			b = append(b, 0xC3)
			b = AppendLen(b, len(c))
			b = AppendLen(b, len(s))
			return append(b, c...)
		}
	}
	b = AppendLen(b, len(s))
	return append(b, s...)
}

// lzfTable is LZFCompress's hash table: positions stamped with the
// generation of the call that stored them.
type lzfTable struct {
	gen   uint32
	slots [1 << 16]uint64
}

var lzfTables = sync.Pool{New: func() any { return new(lzfTable) }}

// LZFCompress is liblzf's lzf_compress as Redis builds it (HLOG 16,
// VERY_FAST): nil when the result would not fit in outLen bytes.
// Redis compresses strings of more than 20 bytes into len-4 bytes.
func LZFCompress(in []byte, outLen int) []byte {
	const (
		hlog   = 16
		hsize  = 1 << hlog
		maxLit = 1 << 5
		maxOff = 1 << 13
		maxRef = (1 << 8) + (1 << 3)
	)
	if len(in) < 2 || outLen <= 0 {
		return nil
	}
	// The hash table is reused: a slot is valid only when it carries
	// this call's generation (Redis's is an uninitialised stack array).
	t := lzfTables.Get().(*lzfTable)
	defer lzfTables.Put(t)
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:])
		t.gen = 1
	}
	gen := uint64(t.gen) << 32
	htab := &t.slots
	out := make([]byte, outLen+1) // Redis allocates one byte more: a run may start there
	inEnd := len(in)
	ip, op := 0, 0
	idx := func(h uint32) uint32 { return ((h >> (3*8 - hlog)) - h*5) & (hsize - 1) }
	lit := 0
	op++ // start run
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := idx(hval)
		ref := -1
		if v := htab[slot]; v&^0xffffffff == gen {
			ref = int(uint32(v))
		}
		htab[slot] = gen | uint64(ip)
		off := ip - ref - 1
		if ref >= 0 && ref < ip && off < maxOff && ref > 0 &&
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
			// lzf_c.c's loop: 16 unrolled steps that check no bound
			// when more than 16 bytes are left, then the checked loop.
			matched := true
			if maxlen > 16 {
				for k := 0; k < 16; k++ {
					length++
					if in[ref+length] != in[ip+length] {
						matched = false
						break
					}
				}
			}
			for matched {
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
			htab[idx(hval)] = gen | uint64(ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab[idx(hval)] = gen | uint64(ip)
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

// LZFMaxExpansion bounds what lzf_decompress makes of n bytes: a
// back-reference of 3 bytes copies at most 264.
const LZFMaxExpansion = 88

// LZFDecompress is lzf_decompress; nil on corrupt input. outLen comes from
// the payload: output is allocated as it is produced, never all at once.
func LZFDecompress(in []byte, outLen int) []byte {
	if outLen < 0 || outLen > LZFMaxExpansion*len(in) {
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

// ReadLen reads an RDB length; ok is false on truncated input.
func ReadLen(b []byte) (n int, enc bool, rest []byte, ok bool) {
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

// ReadString reads an RDB string (raw, integer-encoded or LZF, as
// rdbGenericLoadStringObject) of at most max bytes; it returns the string
// and the rest of b.
func ReadString(b []byte, max int) ([]byte, []byte, bool) {
	n, enc, b, ok := ReadLen(b)
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
		return strconv.AppendInt(nil, int64(int8(b[0])), 10), b[1:], true
	case 1:
		if len(b) < 2 {
			return nil, nil, false
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b))), 10), b[2:], true
	case 2:
		if len(b) < 4 {
			return nil, nil, false
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b))), 10), b[4:], true
	case 3:
		clen, _, b2, ok := ReadLen(b)
		if !ok {
			return nil, nil, false
		}
		ulen, _, b3, ok := ReadLen(b2)
		if !ok || len(b3) < clen || ulen > max {
			return nil, nil, false
		}
		s := LZFDecompress(b3[:clen], ulen)
		if s == nil {
			return nil, nil, false
		}
		return s, b3[clen:], true
	}
	return nil, nil, false
}
