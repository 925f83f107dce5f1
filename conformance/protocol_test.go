package conformance

import (
	"strings"
	"testing"
	"time"
)

// TestProtocolLengthRules covers Redis's string2ll rules for request
// lengths: no leading zeros, no "-0", nothing over the limits.
func TestProtocolLengthRules(t *testing.T) {
	for _, raw := range []string{
		"*1\r\n$04\r\nPING\r\n",
		"*01\r\n$4\r\nPING\r\n",
		"*1\r\n$-0\r\n",
		"*-0\r\n*1\r\n$4\r\nPING\r\n",
		"*99999999999999999999\r\n",
		"*1\r\n$99999999999999999999\r\n",
		"*1\r\n$+4\r\nPING\r\n",
		"*-9223372036854775809\r\n",
		"*1\r\n$-1234567890123456789\r\n",
	} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.Receive()
		p.Closed(2 * time.Second)
	}
}

// TestProtocolNegativeCount: a negative multibulk count that string2ll
// reads, however long, is an empty request and the connection goes on.
func TestProtocolNegativeCount(t *testing.T) {
	p := NewPair(t)
	p.SendRaw([]byte("*-1234567890123456789\r\n*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n"))
	p.Receive()
}

// TestProtocolNegativeMultibulk: a multibulk count of zero or less is an
// empty request that Redis skips, down to the smallest int64 (string2ll
// takes every 64-bit value); one below it is invalid.
func TestProtocolNegativeMultibulk(t *testing.T) {
	for _, count := range []string{"-1", "-2147483649", "-9223372036854775807", "-9223372036854775808"} {
		p := Connect(t)
		p.SendRaw([]byte("*" + count + "\r\n*1\r\n$4\r\nPING\r\n"))
		p.Receive()
		p.Do("ECHO", count)
	}
	p := Connect(t)
	p.SendRaw([]byte("*-9223372036854775809\r\n"))
	p.Receive()
	p.Closed(2 * time.Second)
}

// TestProtocolSplitAndPipelined sends requests cut at every byte boundary
// and many requests in one write; replies must come in order.
func TestProtocolSplitAndPipelined(t *testing.T) {
	p := NewPair(t)
	req := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
	for i := 1; i < len(req); i += 7 {
		p.SendRaw([]byte(req[:i]))
		time.Sleep(time.Millisecond)
		p.SendRaw([]byte(req[i:]))
		p.Receive()
		p.Receive()
	}
	p.SendRaw([]byte(strings.Repeat("*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", 500) + "PING\r\n"))
	for i := 0; i < 501; i++ {
		p.Receive()
	}
}

// TestProtocolErrorAfterPipelines: a protocol error that arrives while
// the pipelines sent before it may still be running (written without
// waiting for their replies, in several writes) is answered after all
// their replies, then the connection closes.
func TestProtocolErrorAfterPipelines(t *testing.T) {
	p := Connect(t)
	p.SendRaw([]byte("DEL perr\r\n"))
	p.SendRaw([]byte("INCR perr\r\nINCR perr\r\n"))
	p.SendRaw([]byte("INCR perr\r\n*1\r\n$x\r\nINCR perr\r\n"))
	for i := 0; i < 5; i++ {
		p.Receive()
	}
	p.Closed(2 * time.Second)
}

// TestProtocolLineEnds: Redis ends a multibulk count or bulk length line at
// its first '\r' and needs one more byte after it, whatever that byte is
// (it does not check for '\n'); the byte after a bulk is skipped likewise.
func TestProtocolLineEnds(t *testing.T) {
	for _, raw := range []string{
		"*1\rX$4\r\nPING\r\n",
		"*1\r\n$4\rXPING\r\n",
		"*1\r\n$4\r\r\nPING\r\n",
		"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\na\r\n\r\n",
	} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.Receive()
		p.Do("PING")
	}
	for _, raw := range []string{"*1\r\n\r\n", "*1\r\n\n\r\n", "*1\r\n\xc3abc\r\n", "*1\r\n$4x\r\n"} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.Receive()
		p.Closed(2 * time.Second)
	}
}

// TestProtocolNULInLine: Redis looks for a line's end with strchr, which
// stops at a NUL byte: a request whose line holds one never completes, and
// fails only when it grows past the inline limit (64 KB).
func TestProtocolNULInLine(t *testing.T) {
	for _, raw := range []string{"*1\x00\r\n$4\r\nPING\r\n", "*1\r\n$4\x00\r\nPING\r\n", "PI\x00NG\r\n", "\x00PING\r\n"} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.NoReply(200 * time.Millisecond)
		p.SendRaw([]byte(strings.Repeat("x\r\n", 22000)))
		p.Receive()
		p.Closed(2 * time.Second)
	}
	// Complete requests before one with a NUL run.
	p := Connect(t)
	p.SendRaw([]byte("*1\r\n$4\r\nPING\r\n*1\r\n\x00\r\n"))
	p.Receive()
	p.NoReply(200 * time.Millisecond)
}

// TestProtocolQueryBufferLimit: a client whose unread input passes
// client-query-buffer-limit is closed without a reply; a value under it
// is stored.
func TestProtocolQueryBufferLimit(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "client-query-buffer-limit", "1mb")
	t.Cleanup(func() {
		c := Connect(t)
		c.Do("CONFIG", "SET", "client-query-buffer-limit", "1gb")
		c.Do("CONFIG", "SET", "proto-max-bulk-len", "512mb")
	})
	// Redis 7.0 does not compare the two limits.
	p.Do("CONFIG", "SET", "proto-max-bulk-len", "2gb")
	p.Do("CONFIG", "GET", "proto-max-bulk-len")
	p.Do("CONFIG", "SET", "proto-max-bulk-len", "512mb")
	q := Connect(t)
	big := strings.Repeat("v", 2<<20)
	q.SendRaw([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + itoa(len(big)) + "\r\n" + big + "\r\n"))
	q.Closed(5 * time.Second)
	p.Do("EXISTS", "k")
	q = Connect(t)
	ok := strings.Repeat("v", 900<<10)
	q.Do("SET", "k", ok)
	q.Do("STRLEN", "k")
	// A blocked client's pipeline waits in the query buffer, and counts.
	q = Connect(t)
	q.Send("BLPOP", "nosuch", "0")
	q.SendRaw([]byte(strings.Repeat("*2\r\n$4\r\nECHO\r\n$1000\r\n"+strings.Repeat("e", 1000)+"\r\n", 1200)))
	q.Closed(5 * time.Second)
}
