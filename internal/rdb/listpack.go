package rdb

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/lockkv/lockkv/internal/redisnum"
)

// Listpacks and ziplists: the compact encodings Redis stores as one blob
// (listpack.c, ziplist.c). lockkv keeps its own in-memory forms, so a
// blob is written from the elements (byte-identical to what Redis builds
// from the same elements) and read back into elements, checked in full:
// Redis 7.0 checks only a blob's header unless sanitize-dump-payload is
// set, lockkv always walks every entry (a corrupt blob is "Bad data
// format", never a crash later).

// lpWriter builds a listpack.
type lpWriter struct {
	b []byte
	n int
}

func newListpack(capHint int) *lpWriter {
	w := &lpWriter{b: make([]byte, 6, 6+capHint+1)}
	return w
}

// size is the listpack's size so far, with its end byte.
func (w *lpWriter) size() int { return len(w.b) + 1 }

func appendBacklen(b []byte, l int) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
}

func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

func lpIntLen(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -32768 && v <= 32767:
		return 3
	case v >= -8388608 && v <= 8388607:
		return 4
	case v >= -2147483648 && v <= 2147483647:
		return 5
	}
	return 9
}

// appendInt is lpAppendInteger.
func (w *lpWriter) appendInt(v int64) {
	start := len(w.b)
	switch u := uint64(v); lpIntLen(v) {
	case 1:
		w.b = append(w.b, byte(v))
	case 2:
		if v < 0 {
			u = uint64((1 << 13) + v)
		}
		w.b = append(w.b, byte(u>>8)|0xC0, byte(u))
	case 3:
		w.b = append(w.b, 0xF1, byte(u), byte(u>>8))
	case 4:
		w.b = append(w.b, 0xF2, byte(u), byte(u>>8), byte(u>>16))
	case 5:
		w.b = append(w.b, 0xF3)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(u))
	default:
		w.b = append(w.b, 0xF4)
		w.b = binary.LittleEndian.AppendUint64(w.b, u)
	}
	w.b = appendBacklen(w.b, len(w.b)-start)
	w.n++
}

// append is lpAppend: integers in canonical form are stored as integers.
func (w *lpWriter) append(s []byte) {
	if v, ok := redisnum.ParseInt(s); ok {
		w.appendInt(v)
		return
	}
	start := len(w.b)
	switch n := len(s); {
	case n < 64:
		w.b = append(w.b, 0x80|byte(n))
	case n < 4096:
		w.b = append(w.b, 0xE0|byte(n>>8), byte(n))
	default:
		w.b = append(w.b, 0xF0)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(n))
	}
	w.b = append(w.b, s...)
	w.b = appendBacklen(w.b, len(w.b)-start)
	w.n++
}

// finish ends the listpack and returns its bytes.
func (w *lpWriter) finish() []byte {
	w.b = append(w.b, 0xFF)
	binary.LittleEndian.PutUint32(w.b, uint32(len(w.b)))
	n := w.n
	if n > 65535 {
		n = 65535
	}
	binary.LittleEndian.PutUint16(w.b[4:], uint16(n))
	return w.b
}

// walkListpack calls fn for every element of lp (integers as their
// decimal text in scratch space; the slice is valid during the call only)
// and reports whether lp is a well-formed listpack.
func walkListpack(lp []byte, fn func(e []byte) bool) bool {
	if len(lp) < 7 || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != 0xFF {
		return false
	}
	want := int(binary.LittleEndian.Uint16(lp[4:]))
	var tmp [24]byte
	count := 0
	p := lp[6 : len(lp)-1]
	for len(p) > 0 {
		c := p[0]
		var l int // encoding + data
		var elem []byte
		ok := true
		switch {
		case c&0x80 == 0:
			l, elem = 1, strconv.AppendInt(tmp[:0], int64(c), 10)
		case c&0xC0 == 0x80:
			l, elem, ok = strEntry(p, 1, uint64(c&0x3f))
		case c&0xE0 == 0xC0:
			if len(p) < 2 {
				return false
			}
			u := int64(c&0x1f)<<8 | int64(p[1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			l, elem = 2, strconv.AppendInt(tmp[:0], u, 10)
		case c&0xF0 == 0xE0:
			if len(p) < 2 {
				return false
			}
			l, elem, ok = strEntry(p, 2, uint64(c&0x0f)<<8|uint64(p[1]))
		case c == 0xF0:
			if len(p) < 5 {
				return false
			}
			l, elem, ok = strEntry(p, 5, uint64(binary.LittleEndian.Uint32(p[1:])))
		case c == 0xF1:
			l, elem, ok = intEntry(p, 2, &tmp)
		case c == 0xF2:
			l, elem, ok = intEntry(p, 3, &tmp)
		case c == 0xF3:
			l, elem, ok = intEntry(p, 4, &tmp)
		case c == 0xF4:
			l, elem, ok = intEntry(p, 8, &tmp)
		default:
			return false
		}
		if !ok {
			return false
		}
		bl := backlenSize(l)
		if len(p) < l+bl {
			return false
		}
		var chk [5]byte
		if string(appendBacklen(chk[:0], l)) != string(p[l:l+bl]) {
			return false
		}
		if !fn(elem) {
			return false
		}
		count++
		p = p[l+bl:]
	}
	return want == 65535 || want == count
}

// strEntry returns the length and bytes of an entry holding a string of n
// bytes after a header of hdr bytes, if p holds all of it.
func strEntry(p []byte, hdr int, n uint64) (int, []byte, bool) {
	if n > uint64(len(p)) || len(p) < hdr+int(n) {
		return 0, nil, false
	}
	return hdr + int(n), p[hdr : hdr+int(n)], true
}

// intEntry returns the length of an entry holding a signed little-endian
// integer of size bytes (1 to 8) after its one-byte encoding, and the
// integer's decimal text in tmp, if p holds all of it.
func intEntry(p []byte, size int, tmp *[24]byte) (int, []byte, bool) {
	if len(p) < 1+size {
		return 0, nil, false
	}
	var u uint64
	for i := size; i >= 1; i-- {
		u = u<<8 | uint64(p[i])
	}
	shift := 64 - 8*size
	return 1 + size, strconv.AppendInt(tmp[:0], int64(u<<shift)>>shift, 10), true
}

// walkZiplist is walkListpack for a ziplist (the encoding of RDB types
// 10, 12, 13 and of RDB_TYPE_LIST_QUICKLIST's nodes).
func walkZiplist(zl []byte, fn func(e []byte) bool) bool {
	if len(zl) < 11 || int(binary.LittleEndian.Uint32(zl)) != len(zl) || zl[len(zl)-1] != 0xFF {
		return false
	}
	tail := int(binary.LittleEndian.Uint32(zl[4:]))
	want := int(binary.LittleEndian.Uint16(zl[8:]))
	var tmp [24]byte
	count, prev, lastOff := 0, 0, 10
	off := 10
	for off < len(zl)-1 {
		p := zl[off : len(zl)-1]
		var prevlen, hdr int
		if p[0] < 254 {
			prevlen, hdr = int(p[0]), 1
		} else if p[0] == 254 {
			if len(p) < 5 {
				return false
			}
			prevlen, hdr = int(binary.LittleEndian.Uint32(p[1:])), 5
		} else {
			return false
		}
		if prevlen != prev {
			return false
		}
		p = p[hdr:]
		if len(p) == 0 {
			return false
		}
		c := p[0]
		var l int // encoding + data
		var elem []byte
		ok := true
		switch {
		case c>>6 == 0:
			l, elem, ok = strEntry(p, 1, uint64(c&0x3f))
		case c>>6 == 1:
			if len(p) < 2 {
				return false
			}
			l, elem, ok = strEntry(p, 2, uint64(c&0x3f)<<8|uint64(p[1]))
		case c == 0x80:
			if len(p) < 5 {
				return false
			}
			l, elem, ok = strEntry(p, 5, uint64(binary.BigEndian.Uint32(p[1:])))
		case c == 0xC0:
			l, elem, ok = intEntry(p, 2, &tmp)
		case c == 0xD0:
			l, elem, ok = intEntry(p, 4, &tmp)
		case c == 0xE0:
			l, elem, ok = intEntry(p, 8, &tmp)
		case c == 0xF0:
			l, elem, ok = intEntry(p, 3, &tmp)
		case c == 0xFE:
			l, elem, ok = intEntry(p, 1, &tmp)
		case c >= 0xF1 && c <= 0xFD:
			l, elem = 1, strconv.AppendInt(tmp[:0], int64(c&0x0f)-1, 10)
		default:
			return false
		}
		if !ok || !fn(elem) {
			return false
		}
		count++
		prev = hdr + l
		lastOff = off
		off += hdr + l
	}
	if off != len(zl)-1 || (count > 0 && tail != lastOff) || (count == 0 && tail != 10) {
		return false
	}
	return want == 65535 || want == count
}

// walkZipmap walks a zipmap (RDB_TYPE_HASH_ZIPMAP, Redis before 2.6),
// calling fn with each field and value.
func walkZipmap(zm []byte, fn func(f, v []byte) bool) bool {
	if len(zm) < 2 {
		return false
	}
	p := zm[1:]
	readLen := func() (int, bool) {
		if len(p) == 0 {
			return 0, false
		}
		switch {
		case p[0] < 254:
			n := int(p[0])
			p = p[1:]
			return n, true
		case p[0] == 254:
			if len(p) < 5 {
				return 0, false
			}
			n := binary.LittleEndian.Uint32(p[1:])
			p = p[5:]
			if uint64(n) > uint64(len(p)) {
				return 0, false
			}
			return int(n), true
		}
		return 0, false
	}
	for {
		if len(p) == 0 {
			return false
		}
		if p[0] == 255 {
			return len(p) == 1
		}
		kl, ok := readLen()
		if !ok || len(p) < kl {
			return false
		}
		k := p[:kl]
		p = p[kl:]
		vl, ok := readLen()
		if !ok || len(p) < 1 {
			return false
		}
		free := int(p[0])
		p = p[1:]
		if len(p) < vl+free {
			return false
		}
		v := p[:vl]
		p = p[vl+free:]
		if !fn(k, v) {
			return false
		}
	}
}

func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
