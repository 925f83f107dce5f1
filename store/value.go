// Package store is lockkv's keyspace: typed values, millisecond expiry and
// the clock interface. It holds no locks, speaks no RESP and never reads the
// wall clock: every call that depends on time takes "now" in Unix
// milliseconds, so the same calls replayed with the same times give the same
// keyspace (the property Raft apply relies on). It is owned by one goroutine.
package store

import (
	"time"

	"github.com/lockkv/lockkv/internal/redisnum"
)

// Clock is the one source of time for a server. Everything that reads time
// (TTL, PTTL, TIME, expiry, scripts) reads it through a Clock.
type Clock interface {
	Now() time.Time
}

// Type is a value's Redis type.
type Type uint8

// The Redis types lockkv stores.
const (
	TypeString Type = iota + 1
	TypeList
	TypeSet
	TypeZSet
	TypeHash
)

// String returns the name TYPE replies with.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeList:
		return "list"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeHash:
		return "hash"
	}
	return "none"
}

// Value is a stored value: *String, *Hash, *List, *Set or *ZSet.
type Value interface {
	Type() Type
	// Encoding is the name OBJECT ENCODING reports.
	Encoding() string
}

// Cloner is implemented by values that COPY can duplicate. Clone returns a
// deep copy that shares no mutable state with the receiver and reports the
// same encoding (Redis's dupStringObject, hashTypeDup, ...).
type Cloner interface {
	Clone() Value
}

// String is a string value. Raw is set once the value was modified in place
// (APPEND, SETRANGE), which Redis reports as the "raw" encoding. NotInt is
// set for values Redis never stores int-encoded even when they look like
// an integer (INCRBYFLOAT's result is an embstr or raw object).
type String struct {
	B      []byte
	Raw    bool
	NotInt bool
}

// NewString returns a string value holding a copy of b. Short values (lock
// tokens, counters) share one allocation with the String header.
func NewString(b []byte) *String {
	switch n := len(b); {
	case n <= 16:
		p := &struct {
			s   String
			buf [16]byte
		}{}
		p.s.B = append(p.buf[:0], b...)
		return &p.s
	case n <= 32:
		p := &struct {
			s   String
			buf [32]byte
		}{}
		p.s.B = append(p.buf[:0], b...)
		return &p.s
	case n <= 96:
		p := &struct {
			s   String
			buf [96]byte
		}{}
		p.s.B = append(p.buf[:0], b...)
		return &p.s
	}
	return &String{B: append(make([]byte, 0, len(b)), b...)}
}

// Type implements Value.
func (s *String) Type() Type { return TypeString }

// Clone implements Cloner.
func (s *String) Clone() Value {
	return &String{B: append(make([]byte, 0, len(s.B)), s.B...), Raw: s.Raw, NotInt: s.NotInt}
}

// Encoding implements Value: int, embstr or raw, as Redis decides.
func (s *String) Encoding() string {
	if len(s.B) <= 20 && !s.Raw && !s.NotInt {
		if _, ok := redisnum.ParseInt(s.B); ok { // string2l
			return "int"
		}
	}
	if len(s.B) <= 44 && !s.Raw {
		return "embstr"
	}
	return "raw"
}
