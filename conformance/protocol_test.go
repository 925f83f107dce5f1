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
	} {
		p := Connect(t)
		p.SendRaw([]byte(raw))
		p.Receive()
		p.Closed(2 * time.Second)
	}
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
