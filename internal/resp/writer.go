// Package resp encodes replies in RESP2 or RESP3 and parses client requests
// with Redis's own protocol rules and error texts.
package resp

import (
	"math"
	"strconv"
)

// Writer appends RESP replies to B. Proto selects RESP2 (2) or RESP3 (3);
// RESP3-only types degrade the way Redis degrades them under RESP2.
// The zero value writes RESP2.
type Writer struct {
	B     []byte
	Proto int
}

// Reset empties the buffer, keeping its capacity.
func (w *Writer) Reset() { w.B = w.B[:0] }

// Len returns the number of buffered bytes.
func (w *Writer) Len() int { return len(w.B) }

// Resp3 reports whether RESP3 types are written natively.
func (w *Writer) Resp3() bool { return w.Proto == 3 }

func (w *Writer) prefix(c byte, n int64) {
	w.B = append(w.B, c)
	w.B = strconv.AppendInt(w.B, n, 10)
	w.B = append(w.B, '\r', '\n')
}

// Error writes an error reply; msg carries its own prefix ("ERR ...",
// "WRONGTYPE ..."). Newlines are replaced by spaces as Redis does.
func (w *Writer) Error(msg string) {
	w.B = append(w.B, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.B = append(w.B, c)
	}
	w.B = append(w.B, '\r', '\n')
}

// Status writes a simple string reply.
func (w *Writer) Status(s string) {
	w.B = append(w.B, '+')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() { w.B = append(w.B, "+OK\r\n"...) }

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.prefix('$', int64(len(b)))
	w.B = append(w.B, b...)
	w.B = append(w.B, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.prefix('$', int64(len(s)))
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// BulkInt writes n formatted as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [24]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Int writes an integer reply.
func (w *Writer) Int(n int64) { w.prefix(':', n) }

// Null writes the null bulk string ($-1) or RESP3 null (_).
func (w *Writer) Null() {
	if w.Proto == 3 {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "$-1\r\n"...)
}

// NullArray writes the null array (*-1) or RESP3 null (_).
func (w *Writer) NullArray() {
	if w.Proto == 3 {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "*-1\r\n"...)
}

// Array writes an array header of n elements.
func (w *Writer) Array(n int) { w.prefix('*', int64(n)) }

// Map writes a map header of n pairs (an array of 2n elements in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto == 3 {
		w.prefix('%', int64(n))
		return
	}
	w.prefix('*', int64(2*n))
}

// Set writes a set header (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto == 3 {
		w.prefix('~', int64(n))
		return
	}
	w.prefix('*', int64(n))
}

// Push writes an out-of-band push header (an array in RESP2).
func (w *Writer) Push(n int) {
	if w.Proto == 3 {
		w.prefix('>', int64(n))
		return
	}
	w.prefix('*', int64(n))
}

// Bool writes a RESP3 boolean, or the integer 1/0 in RESP2.
func (w *Writer) Bool(b bool) {
	if w.Proto == 3 {
		if b {
			w.B = append(w.B, "#t\r\n"...)
		} else {
			w.B = append(w.B, "#f\r\n"...)
		}
		return
	}
	if b {
		w.B = append(w.B, ":1\r\n"...)
	} else {
		w.B = append(w.B, ":0\r\n"...)
	}
}

// Double writes a double the way Redis 7.0's addReplyDouble does:
// "%.17g" as a bulk string in RESP2, a ',' double in RESP3.
func (w *Writer) Double(f float64) {
	var tmp [40]byte
	b := AppendDouble(tmp[:0], f)
	if w.Proto == 3 {
		w.B = append(w.B, ',')
		w.B = append(w.B, b...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// AppendDouble formats f as Redis 7.0 does in replies ("%.17g", inf,
// -inf; a NaN as glibc's printf shows it, "-nan" with its sign bit set,
// as it is for 0/0 on x86-64).
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f) && math.Signbit(f):
		return append(dst, "-nan"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// BigNumber writes a RESP3 big number, or a bulk string in RESP2.
func (w *Writer) BigNumber(s string) {
	if w.Proto == 3 {
		w.B = append(w.B, '(')
		w.B = append(w.B, s...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// Verbatim writes a RESP3 verbatim string with format ext ("txt"),
// or a bulk string in RESP2.
func (w *Writer) Verbatim(s, ext string) {
	if w.Proto == 3 {
		w.prefix('=', int64(len(s)+4))
		w.B = append(w.B, ext...)
		w.B = append(w.B, ':')
		w.B = append(w.B, s...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// Raw appends already-encoded RESP.
func (w *Writer) Raw(b []byte) { w.B = append(w.B, b...) }

// StringArray writes an array of bulk strings.
func (w *Writer) StringArray(items []string) {
	w.Array(len(items))
	for _, s := range items {
		w.BulkString(s)
	}
}
