package rdb

// Primitives copied from commands/functions_dump.go until the internal/rdb
// move (branch rd1) lands; this file goes away with that merge.

import (
	"encoding/binary"
	"math"
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

// AppendLen appends an RDB length.
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
	if len(in) < 2 || outLen <= 0 {
		return nil
	}
	htab := make([]int32, hsize)  // positions + 1; 0 = empty
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
		ref := int(htab[slot]) - 1
		htab[slot] = int32(ip + 1)
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

// readLen reads an RDB length; ok is false on truncated input. enc is set
// for the special (encoded string) forms.
func readLen(b []byte) (n int, enc bool, rest []byte, ok bool) {
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
			return 0, false, nil, false
		}
		return int(n), false, b[9:], true
	}
	return 0, false, nil, false
}
