package resp

import (
	"errors"
)

// Limits Redis applies to requests (networking.c).
const (
	InlineMaxSize       = 64 * 1024         // PROTO_INLINE_MAX_SIZE
	DefaultMaxBulkLen   = 512 * 1024 * 1024 // proto-max-bulk-len
	maxMultibulkLen     = 1<<31 - 1         // INT_MAX
	unauthMaxMultibulk  = 10
	unauthMaxBulkLength = 16384
)

// ProtocolError is a malformed request. Its text is Redis's; the server
// replies "-ERR <text>" and closes the connection after the reply.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

// ErrIncomplete reports that buf holds only part of a request.
var ErrIncomplete = errors.New("incomplete request")

// Limits configures request parsing.
type Limits struct {
	MaxBulkLen    int64 // proto-max-bulk-len; 0 means DefaultMaxBulkLen
	Authenticated bool  // false applies Redis's tighter unauthenticated limits
}

// ParseRequest parses one request from the front of buf. It returns the
// arguments (sub-slices of buf for RESP requests, so they are valid only as
// long as buf is), and the bytes consumed. A request with zero arguments
// (an empty inline line, "*0") returns args == nil and n > 0: skip it.
// ErrIncomplete means more bytes are needed; a *ProtocolError is fatal for
// the connection.
func ParseRequest(buf []byte, argv [][]byte, lim Limits) (args [][]byte, n int, err error) {
	if len(buf) == 0 {
		return nil, 0, ErrIncomplete
	}
	if buf[0] != '*' {
		return parseInline(buf, argv)
	}
	maxBulk := lim.MaxBulkLen
	if maxBulk <= 0 {
		maxBulk = DefaultMaxBulkLen
	}
	nl := indexCRLF(buf, 0)
	if nl < 0 {
		if len(buf) > InlineMaxSize {
			return nil, 0, &ProtocolError{"too big mbulk count string"}
		}
		return nil, 0, ErrIncomplete
	}
	count, ok := parseInt(buf[1:nl])
	if !ok || count > maxMultibulkLen {
		return nil, 0, &ProtocolError{"invalid multibulk length"}
	}
	if count > unauthMaxMultibulk && !lim.Authenticated {
		return nil, 0, &ProtocolError{"unauthenticated multibulk length"}
	}
	pos := nl + 2
	if count <= 0 {
		return nil, pos, nil
	}
	args = argv[:0]
	for i := int64(0); i < count; i++ {
		if pos >= len(buf) {
			return nil, 0, ErrIncomplete
		}
		nl = indexCRLF(buf, pos)
		if nl < 0 {
			if len(buf)-pos > InlineMaxSize {
				return nil, 0, &ProtocolError{"too big bulk count string"}
			}
			return nil, 0, ErrIncomplete
		}
		if buf[pos] != '$' {
			return nil, 0, &ProtocolError{"expected '$', got '" + string(buf[pos]) + "'"}
		}
		size, ok := parseInt(buf[pos+1 : nl])
		if !ok || size < 0 || size > maxBulk {
			return nil, 0, &ProtocolError{"invalid bulk length"}
		}
		if size > unauthMaxBulkLength && !lim.Authenticated {
			return nil, 0, &ProtocolError{"unauthenticated bulk length"}
		}
		pos = nl + 2
		if int64(len(buf)-pos) < size+2 {
			return nil, 0, ErrIncomplete
		}
		args = append(args, buf[pos:pos+int(size):pos+int(size)])
		pos += int(size) + 2 // Redis does not check the trailing CRLF
	}
	return args, pos, nil
}

// NeedBytes returns how many bytes the first incomplete request in buf needs
// at least, when a bulk header has been read; 0 when unknown. It lets the
// reader grow its buffer once for a large value.
func NeedBytes(buf []byte) int {
	if len(buf) == 0 || buf[0] != '*' {
		return 0
	}
	nl := indexCRLF(buf, 0)
	if nl < 0 {
		return 0
	}
	count, ok := parseInt(buf[1:nl])
	if !ok || count <= 0 {
		return 0
	}
	pos := nl + 2
	for i := int64(0); i < count; i++ {
		nl = indexCRLF(buf, pos)
		if nl < 0 || buf[pos] != '$' {
			return 0
		}
		size, ok := parseInt(buf[pos+1 : nl])
		if !ok || size < 0 {
			return 0
		}
		pos = nl + 2 + int(size) + 2
		if pos > len(buf) {
			return pos
		}
	}
	return 0
}

func indexCRLF(b []byte, from int) int {
	for i := from; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return i
		}
	}
	return -1
}

// parseInt parses a length as Redis's string2ll does (optional '-', no '+',
// no spaces, no leading zeros), without allocating. Numbers of more than 18
// digits are refused: every one of them is over the limits that apply, and
// Redis gives the same error for those.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && (len(b) > 1 || neg)) {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func parseInline(buf []byte, argv [][]byte) ([][]byte, int, error) {
	// Redis finds the end of an inline request with strchr, which stops at
	// a NUL byte: a request with a NUL before its newline never completes
	// (until it exceeds the inline limit).
	nl := -1
	for i, c := range buf {
		if c == '\n' {
			nl = i
			break
		}
		if c == 0 {
			break
		}
	}
	if nl < 0 {
		if len(buf) > InlineMaxSize {
			return nil, 0, &ProtocolError{"too big inline request"}
		}
		return nil, 0, ErrIncomplete
	}
	line := buf[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := SplitArgs(line, argv[:0])
	if !ok {
		return nil, 0, &ProtocolError{"unbalanced quotes in request"}
	}
	if len(args) == 0 {
		return nil, nl + 1, nil
	}
	return args, nl + 1, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// SplitArgs splits a line the way Redis's sdssplitargs does (inline
// commands, redis-cli): double quotes with \n \r \t \b \a \xHH escapes,
// single quotes with \' only, and a closing quote must be followed by a
// space or the end of the line.
func SplitArgs(line []byte, out [][]byte) ([][]byte, bool) {
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			return out, true
		}
		var cur []byte
		inq, insq, done := false, false, false
		for !done {
			if inq {
				if p >= len(line) {
					return nil, false
				}
				c := line[p]
				if c == '\\' && p+3 < len(line) && line[p+1] == 'x' {
					h, ok1 := hexVal(line[p+2])
					l, ok2 := hexVal(line[p+3])
					if ok1 && ok2 {
						cur = append(cur, h<<4|l)
						p += 3
						p++
						continue
					}
				}
				if c == '\\' && p+1 < len(line) {
					p++
					switch line[p] {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					default:
						c = line[p]
					}
					cur = append(cur, c)
				} else if c == '"' {
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return nil, false
					}
					done = true
				} else {
					cur = append(cur, c)
				}
			} else if insq {
				if p >= len(line) {
					return nil, false
				}
				c := line[p]
				if c == '\\' && p+1 < len(line) && line[p+1] == '\'' {
					p++
					cur = append(cur, '\'')
				} else if c == '\'' {
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return nil, false
					}
					done = true
				} else {
					cur = append(cur, c)
				}
			} else {
				if p >= len(line) {
					break
				}
				switch c := line[p]; c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if p < len(line) {
				p++
			}
		}
		if cur == nil {
			cur = []byte{}
		}
		out = append(out, cur)
	}
}
