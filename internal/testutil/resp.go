package testutil

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Value is a parsed RESP2/RESP3 reply, kept close to the wire so that two
// servers' replies can be compared exactly.
type Value struct {
	Kind  byte   // the RESP type byte: + - : $ * _ , # ! = ( % ~ > |
	Str   string // simple/bulk/error/verbatim/double/bignum text, integer digits
	Null  bool   // $-1 or *-1
	Elems []Value
}

// String renders v in a compact, unambiguous form for failure messages.
func (v Value) String() string {
	var sb strings.Builder
	v.render(&sb)
	return sb.String()
}

func (v Value) render(sb *strings.Builder) {
	switch v.Kind {
	case '*', '%', '~', '>', '|':
		if v.Null {
			sb.WriteString("(nil array)")
			return
		}
		sb.WriteByte(v.Kind)
		sb.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			e.render(sb)
		}
		sb.WriteByte(']')
	case '$':
		if v.Null {
			sb.WriteString("(nil)")
			return
		}
		sb.WriteString(strconv.Quote(v.Str))
	case '_':
		sb.WriteString("(null)")
	default:
		sb.WriteByte(v.Kind)
		sb.WriteString(v.Str)
	}
}

// Equal reports whether a and b are the same reply.
func Equal(a, b Value) bool {
	if a.Kind != b.Kind || a.Str != b.Str || a.Null != b.Null || len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Elems {
		if !Equal(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	return true
}

// Sorted returns v with its top-level elements sorted (maps by key, keeping
// pairs together), for replies whose order Redis does not define.
func (v Value) Sorted() Value {
	switch v.Kind {
	case '*', '~', '>':
		els := append([]Value(nil), v.Elems...)
		sort.SliceStable(els, func(i, j int) bool { return els[i].String() < els[j].String() })
		v.Elems = els
	case '%':
		type pair struct{ k, v Value }
		ps := make([]pair, 0, len(v.Elems)/2)
		for i := 0; i+1 < len(v.Elems); i += 2 {
			ps = append(ps, pair{v.Elems[i], v.Elems[i+1]})
		}
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].k.String() < ps[j].k.String() })
		els := make([]Value, 0, len(v.Elems))
		for _, p := range ps {
			els = append(els, p.k, p.v)
		}
		v.Elems = els
	}
	return v
}

// SortedPairs sorts a flat RESP2 array of key/value pairs (HGETALL,
// ZRANGE WITHSCORES under RESP2) by key, keeping pairs together.
func (v Value) SortedPairs() Value {
	if v.Kind != '*' {
		return v
	}
	m := v
	m.Kind = '%'
	m = m.Sorted()
	m.Kind = '*'
	return m
}

// ReadValue reads one complete reply.
func ReadValue(r *bufio.Reader) (Value, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return Value{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return Value{}, fmt.Errorf("malformed reply line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-', ':', ',', '#', '(':
		return Value{Kind: kind, Str: body}, nil
	case '_':
		return Value{Kind: kind}, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return Value{}, fmt.Errorf("bad bulk length %q", body)
		}
		if n < 0 {
			return Value{Kind: kind, Null: true}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return Value{}, err
		}
		if !bytes.HasSuffix(buf, []byte("\r\n")) {
			return Value{}, fmt.Errorf("bulk not terminated by CRLF")
		}
		return Value{Kind: kind, Str: string(buf[:n])}, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return Value{}, fmt.Errorf("bad aggregate length %q", body)
		}
		if n < 0 {
			return Value{Kind: kind, Null: true}, nil
		}
		count := n
		if kind == '%' || kind == '|' {
			count = 2 * n
		}
		v := Value{Kind: kind, Elems: make([]Value, 0, count)}
		for i := 0; i < count; i++ {
			e, err := ReadValue(r)
			if err != nil {
				return Value{}, err
			}
			v.Elems = append(v.Elems, e)
		}
		return v, nil
	}
	return Value{}, fmt.Errorf("unknown reply type %q", line)
}

// Command encodes args as a RESP array of bulk strings, the way clients
// send commands.
func Command(args ...string) []byte {
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}
