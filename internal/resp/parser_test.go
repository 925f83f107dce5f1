package resp

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// feed parses stream as a connection reader does: the bytes arrive in
// pieces of the given sizes (the last repeated), and each Parse sees what
// has arrived from the start of the current request on, in a buffer copied
// afresh when copyBuf is set (a reader that moved its buffer). It returns
// the commands, joined as in TestParseRequest, the final error (nil when
// the stream ended between requests) and the parser.
func feed(stream []byte, lim Limits, pieces []int, copyBuf bool) (string, error, *Parser) {
	var p Parser
	var cmds []string
	start, avail := 0, 0
	for i := 0; ; i++ {
		if avail < len(stream) {
			step := pieces[min(i, len(pieces)-1)]
			avail = min(avail+max(step, 1), len(stream))
		}
		for start < avail {
			buf := stream[start:avail]
			if copyBuf {
				buf = append([]byte(nil), buf...)
			}
			args, n, err := p.Parse(buf, nil, lim)
			if err == ErrIncomplete {
				break
			}
			if err != nil {
				return strings.Join(cmds, "|"), err, &p
			}
			start += n
			if args != nil {
				var parts []string
				for _, a := range args {
					parts = append(parts, string(a))
				}
				cmds = append(cmds, strings.Join(parts, ","))
			}
		}
		if avail == len(stream) {
			var err error
			if start < avail {
				err = ErrIncomplete
			}
			return strings.Join(cmds, "|"), err, &p
		}
	}
}

// TestParserSplitAnywhere: a stream cut at any point, the buffer moved
// between the pieces, parses as it does whole.
func TestParserSplitAnywhere(t *testing.T) {
	for _, stream := range []string{
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"PING\r\nset a 'b c'\n\r\n*0\r\n*-1\r\nECHO \"x\\x41\"\r\n",
		"*1\rX$4\r\nPING\r\n*1\r\n$4\rXPING\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n",
		"*2\r\n$4\r\nECHO\r\n$3\r\nab\r\n\r\n",
		"*1\r\n$4\r\nPING\r\n*1\r\nx\r\n",
		"*1\r\n$4\r\nPING\r\n*1\x00\r\n$4\r\nPING\r\n",
		"PING\r\nPI\x00NG\r\n",
		"*3\r\n$1\r\na\r\n$1\r\nb\r\n$1",
	} {
		want, wantErr, _ := feed([]byte(stream), Limits{Authenticated: true}, []int{len(stream)}, false)
		for cut := 1; cut < len(stream); cut++ {
			got, err, _ := feed([]byte(stream), Limits{Authenticated: true}, []int{cut, 1}, true)
			if got != want || errText(err) != errText(wantErr) {
				t.Errorf("%q cut at %d then bytes: %q, %v; whole: %q, %v", stream, cut, got, err, want, wantErr)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestParserLinear counts the bytes the parser examines, which is its
// work: linear in what arrives however it arrives (the bytes of a bulk
// are not examined at all; a line's bytes once, plus one byte per call
// when a line's '\r' is the last byte that arrived).
func TestParserLinear(t *testing.T) {
	big := strings.Repeat("v", 64<<20)
	var many strings.Builder
	many.WriteString("*1000001\r\n$4\r\nMSET\r\n")
	for i := 0; i < 500000; i++ {
		many.WriteString("$1\r\nk\r\n$1\r\nv\r\n")
	}
	for _, tc := range []struct {
		name   string
		stream string
		piece  int
	}{
		{"64 MB bulk in 1 KB pieces", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\n", 1024},
		{"a million arguments in 1 KB pieces", many.String(), 1024},
		{"a million arguments a byte at a time", many.String(), 1},
		{"60 KB inline request a byte at a time", "SET k " + strings.Repeat("v", 60000) + "\r\n", 1},
		{"60 KB count line a byte at a time", "*" + strings.Repeat("1", 60000) + "\r\n", 1},
	} {
		stream := []byte(tc.stream)
		_, _, p := feed(stream, Limits{Authenticated: true, MaxBulkLen: 1 << 30}, []int{tc.piece}, false)
		calls := int64(len(stream)/tc.piece + 1)
		if p.Examined > int64(len(stream))+calls {
			t.Errorf("%s: %d bytes examined for %d bytes in %d calls", tc.name, p.Examined, len(stream), calls)
		}
		t.Logf("%s: %d bytes, %d examined", tc.name, len(stream), p.Examined)
	}
}

// TestParserNeed: once a bulk header was read, Need says how long the
// buffer must be for the request to complete, counted from its start.
func TestParserNeed(t *testing.T) {
	var p Parser
	req := "*2\r\n$3\r\nGET\r\n$10\r\n0123"
	if _, _, err := p.Parse([]byte(req), nil, Limits{Authenticated: true}); err != ErrIncomplete {
		t.Fatal(err)
	}
	if want := len("*2\r\n$3\r\nGET\r\n$10\r\n") + 12; p.Need() != want {
		t.Fatalf("Need = %d, want %d", p.Need(), want)
	}
	args, n, err := p.Parse([]byte(req+"456789\r\n"), nil, Limits{Authenticated: true})
	if err != nil || n != len(req)+8 || len(args) != 2 || string(args[1]) != "0123456789" || p.Need() != 0 {
		t.Fatalf("%q %d %v, Need %d", args, n, err, p.Need())
	}
}

// redisErrors are the protocol errors Redis 7.0's networking.c sends.
var redisErrors = map[string]bool{
	"too big inline request": true, "unbalanced quotes in request": true,
	"too big mbulk count string": true, "invalid multibulk length": true,
	"unauthenticated multibulk length": true, "too big bulk count string": true,
	"invalid bulk length": true, "unauthenticated bulk length": true,
}

// FuzzParseRequest: no input panics; what is consumed stays within the
// input; errors are Redis's texts; a stream cut into pieces at the
// points the fuzzer picks, the buffer moved each time, parses as it does
// whole; and the work is linear in the input.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		"*1\r\n$4\r\nPING\r\n", "PING\r\n", "*-1\r\n", "*1\r\n$-1\r\n", "\"a\\x4\"\r\n", "*3\r\n$1\r\na",
		"*1\rX$4\r\nPING\r\n", "*1\x00\r\n", "set a 'b c'\n", "*2\r\n$4\r\nECHO\r\n$3\r\na\r\n\r\n",
	} {
		f.Add([]byte(s), uint16(3), uint8(0), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint16, maxBulk uint8, authed bool) {
		lim := Limits{Authenticated: authed, MaxBulkLen: int64(maxBulk)}
		args, n, err := ParseRequest(b, nil, lim)
		if n < 0 || n > len(b) {
			t.Fatalf("consumed %d of %d", n, len(b))
		}
		if err == nil && n == 0 {
			t.Fatalf("no progress without error")
		}
		for _, a := range args {
			if len(a) > len(b) {
				t.Fatalf("argument longer than the input")
			}
		}
		var pe *ProtocolError
		switch {
		case err == nil, err == ErrIncomplete:
		case errors.As(err, &pe):
			if !redisErrors[pe.Msg] && !(strings.HasPrefix(pe.Msg, "expected '$', got '") && len(pe.Msg) == len("expected '$', got 'x'")) {
				t.Fatalf("error not Redis's: %q", pe.Msg)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
		if len(b) > InlineMaxSize {
			return // past the inline limit the outcome depends on the pieces, in Redis too
		}
		whole, wholeErr, _ := feed(b, lim, []int{len(b)}, false)
		pieces := []int{int(cut%64) + 1, int(cut/64%16) + 1}
		split, splitErr, p := feed(b, lim, pieces, true)
		if split != whole || errText(splitErr) != errText(wholeErr) {
			t.Fatalf("pieces %v: %q, %v; whole: %q, %v", pieces, split, splitErr, whole, wholeErr)
		}
		if calls := int64(len(b) + 1); p.Examined > int64(len(b))+calls {
			t.Fatalf("%d bytes examined for %d", p.Examined, len(b))
		}
	})
}
