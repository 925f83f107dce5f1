package resp

import (
	"errors"
	"math"
	"unsafe"
)

// Limits Redis applies to requests (networking.c).
const (
	InlineMaxSize       = 64 * 1024         // PROTO_INLINE_MAX_SIZE
	DefaultMaxBulkLen   = 512 * 1024 * 1024 // proto-max-bulk-len
	maxMultibulkLen     = 1<<31 - 1         // INT_MAX
	unauthMaxMultibulk  = 10
	unauthMaxBulkLength = 16384
	bigArg              = 32 * 1024 // PROTO_MBULK_BIG_ARG
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
// the connection. It is Parser.Parse without memory: a connection reading
// a request in pieces uses a Parser, which examines each byte once.
func ParseRequest(buf []byte, argv [][]byte, lim Limits) (args [][]byte, n int, err error) {
	var p Parser
	return p.Parse(buf, argv, lim)
}

// Parser parses the requests of one connection as Redis's
// processInlineBuffer and processMultibulkBuffer do, keeping its place in
// a request that has not fully arrived: the next Parse continues where the
// last one stopped instead of starting over, so a request that arrives a
// byte at a time, a bulk in small pieces or a million arguments one by one
// costs time linear in its size. The zero value is ready to use.
//
// Between a Parse that returned ErrIncomplete and the next one, the buffer
// passed must start at the same request and hold at least the bytes it held
// before (it may have been moved, and have grown).
type Parser struct {
	active  bool  // a request is partly parsed
	inline  bool  // it is an inline request
	nul     bool  // a NUL byte came before the end of the current line: it never ends
	counted bool  // the multibulk count was read
	left    int64 // arguments still to read
	bulk    int64 // length of the bulk whose header was read, or -1
	pos     int   // where the next line or bulk starts
	scan    int   // where the search for the current line's end resumes
	// offs are the arguments read so far, while the request is incomplete.
	offs []span
	// Examined counts the bytes the parser looked at (in requests that
	// parsed or are incomplete), for tests that prove the work linear.
	Examined int64
}

type span struct{ off, n int }

// Parse parses one request from the front of buf, like ParseRequest, and
// remembers its progress when the request is incomplete.
func (p *Parser) Parse(buf []byte, argv [][]byte, lim Limits) (args [][]byte, n int, err error) {
	if !p.active {
		if len(buf) == 0 {
			return nil, 0, ErrIncomplete
		}
		if buf[0] == '*' {
			// The common case: nothing to resume, and nothing in p to
			// reset unless the request is incomplete.
			args, n, err = p.parseMultibulk(buf, argv, lim)
			p.active = err == ErrIncomplete
			return args, n, err
		}
		p.inline = true
	}
	if p.inline {
		args, n, err = p.parseInline(buf, argv)
	} else {
		args, n, err = p.parseMultibulk(buf, argv, lim)
	}
	if err == ErrIncomplete {
		p.active = true
	} else {
		p.reset()
	}
	return args, n, err
}

// reset forgets a partly parsed request.
func (p *Parser) reset() {
	if len(p.offs) > 0 {
		clear(p.offs)
	}
	*p = Parser{offs: p.offs[:0], Examined: p.Examined}
}

// Need returns how long the buffer must be at least (counted from the
// request's start) for the request in progress to complete, when a bulk
// header has been read; 0 when unknown. It lets a reader grow its buffer
// once for a large value.
func (p *Parser) Need() int {
	if !p.active || p.inline || p.bulk < 0 {
		return 0
	}
	return p.pos + int(p.bulk) + 2
}

// QueryStart returns where Redis's query buffer would start, counted from
// the request's start: at the data of a bulk of PROTO_MBULK_BIG_ARG (32
// KB) or more being read, which Redis moves to the front of its buffer;
// else at the request. It is what Redis's "qbuf initial bytes" show.
func (p *Parser) QueryStart() int {
	if !p.active || p.inline || p.bulk < bigArg {
		return 0
	}
	return p.pos
}

// lineEnd finds the end of a line as Redis's strchr does: the first c
// from buf[from:], unless a NUL byte comes first (then the line never
// ends: nul). It returns the index of c, or where the search stopped.
func lineEnd(buf []byte, from int, c byte) (i int, found, nul bool) {
	for i = from; i < len(buf); i++ {
		if b := buf[i]; b <= c {
			if b == c {
				return i, true, false
			}
			if b == 0 {
				return i, false, true
			}
		}
	}
	return i, false, false
}

func (p *Parser) parseMultibulk(buf []byte, argv [][]byte, lim Limits) ([][]byte, int, error) {
	if p.nul {
		// A line holding a NUL byte never ends: only its length counts.
		switch {
		case !p.counted && len(buf) > InlineMaxSize:
			return nil, 0, &ProtocolError{"too big mbulk count string"}
		case p.counted && len(buf)-p.pos > InlineMaxSize:
			return nil, 0, &ProtocolError{"too big bulk count string"}
		}
		return nil, 0, ErrIncomplete
	}
	maxBulk := lim.MaxBulkLen
	if maxBulk <= 0 {
		maxBulk = DefaultMaxBulkLen
	}
	// The state lives in locals while parsing, and in p only when the
	// request is incomplete. The arguments read in this call go to argv;
	// those read before are in p.offs.
	pos, scan, bulk, left := p.pos, p.scan, p.bulk, p.left
	if !p.counted {
		bulk = -1
	}
	var examined int64
	args := argv[:0]
	if !p.counted {
		// processMultibulkBuffer: the line ends at the first '\r', which
		// must be followed by one more byte (Redis does not check it is
		// '\n').
		from := max(scan, 1)
		nl, found, nul := lineEnd(buf, from, '\r')
		examined += int64(nl - from + 1)
		if !found {
			if len(buf) > InlineMaxSize {
				return nil, 0, &ProtocolError{"too big mbulk count string"}
			}
			return p.incomplete(buf, args, pos, nl, bulk, left, false, nul, examined)
		}
		if nl+1 >= len(buf) {
			return p.incomplete(buf, args, pos, nl, bulk, left, false, false, examined)
		}
		count, ok := ParseInt(buf[1:nl])
		if !ok || count > maxMultibulkLen {
			return nil, 0, &ProtocolError{"invalid multibulk length"}
		}
		if count > unauthMaxMultibulk && !lim.Authenticated {
			return nil, 0, &ProtocolError{"unauthenticated multibulk length"}
		}
		pos = nl + 2
		if count <= 0 {
			p.Examined += examined
			return nil, pos, nil
		}
		left = count
	}
	for left > 0 {
		if bulk < 0 {
			from := max(scan, pos)
			nl, found, nul := lineEnd(buf, from, '\r')
			examined += int64(nl - from + 1)
			if !found {
				if len(buf)-pos > InlineMaxSize {
					return nil, 0, &ProtocolError{"too big bulk count string"}
				}
				return p.incomplete(buf, args, pos, nl, bulk, left, true, nul, examined)
			}
			if nl+1 >= len(buf) {
				return p.incomplete(buf, args, pos, nl, bulk, left, true, false, examined)
			}
			if buf[pos] != '$' {
				return nil, 0, &ProtocolError{"expected '$', got '" + string(buf[pos:pos+1]) + "'"}
			}
			size, ok := ParseInt(buf[pos+1 : nl])
			if !ok || size < 0 || size > maxBulk {
				return nil, 0, &ProtocolError{"invalid bulk length"}
			}
			if size > unauthMaxBulkLength && !lim.Authenticated {
				return nil, 0, &ProtocolError{"unauthenticated bulk length"}
			}
			pos, bulk = nl+2, size
		}
		if int64(len(buf)-pos) < bulk+2 {
			return p.incomplete(buf, args, pos, pos, bulk, left, true, false, examined)
		}
		end := pos + int(bulk)
		args = append(args, buf[pos:end:end])
		pos = end + 2 // Redis does not check the trailing CRLF
		bulk = -1
		left--
	}
	p.Examined += examined
	if n := len(p.offs); n > 0 {
		// Arguments read by earlier calls come first.
		k := len(args)
		args = append(args, make([][]byte, n)...)
		copy(args[n:], args[:k])
		for i, s := range p.offs {
			args[i] = buf[s.off : s.off+s.n : s.off+s.n]
		}
	}
	return args, pos, nil
}

// incomplete saves the parser's place, keeping the arguments this call
// read as offsets into buf, so that the next call can continue with a
// buffer that was moved. It is kept out of line: parseMultibulk's loop is
// the hot path.
//
//go:noinline
func (p *Parser) incomplete(buf []byte, args [][]byte, pos, scan int, bulk, left int64, counted, nul bool, examined int64) ([][]byte, int, error) {
	p.pos, p.scan, p.bulk, p.left, p.counted, p.nul = pos, scan, bulk, left, counted, nul
	p.Examined += examined
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	for _, a := range args {
		// Every argument is followed by its CRLF inside buf, so its data
		// pointer is one into buf even when it is empty.
		off := int(uintptr(unsafe.Pointer(unsafe.SliceData(a))) - base)
		p.offs = append(p.offs, span{off, len(a)})
	}
	clear(args)
	return nil, 0, ErrIncomplete
}

// ParseInt parses b as Redis's string2ll does: optional '-', no '+', no
// leading zeros, no spaces, within int64. It does not allocate.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' || v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// parseInline is processInlineBuffer: the line ends at the first '\n'
// (strchr, which stops at a NUL byte: a request with a NUL before its
// newline never completes until it exceeds the inline limit).
func (p *Parser) parseInline(buf []byte, argv [][]byte) ([][]byte, int, error) {
	nl, found := -1, false
	if !p.nul {
		var nul bool
		nl, found, nul = lineEnd(buf, p.scan, '\n')
		p.Examined += int64(nl - p.scan + 1)
		p.scan, p.nul = nl, nul
	}
	if !found {
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
