package resp

import (
	"errors"
	"strings"
	"testing"
)

func parseAll(t *testing.T, in string) ([][]string, error) {
	t.Helper()
	buf := []byte(in)
	var out [][]string
	for len(buf) > 0 {
		args, n, err := ParseRequest(buf, nil, Limits{Authenticated: true})
		if err != nil {
			return out, err
		}
		buf = buf[n:]
		if args == nil {
			continue
		}
		var s []string
		for _, a := range args {
			s = append(s, string(a))
		}
		out = append(out, s)
	}
	return out, nil
}

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // commands joined by | and args by ,
		err  string
	}{
		{in: "*1\r\n$4\r\nPING\r\n", want: "PING"},
		{in: "*2\r\n$3\r\nGET\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n", want: "GET,|PING"},
		{in: "*0\r\n*-1\r\n*1\r\n$1\r\na\r\n", want: "a"},
		{in: "PING\r\n", want: "PING"},
		{in: "set a 'b c' \"d\\x41\\n\"\n", want: "set,a,b c,dA\n"},
		{in: "\r\n\r\nPING\n", want: "PING"},
		{in: "*1\r\n$-5\r\n", err: "Protocol error: invalid bulk length"},
		{in: "*x\r\n", err: "Protocol error: invalid multibulk length"},
		{in: "*1\r\nx\r\n", err: "Protocol error: expected '$', got 'x'"},
		{in: "*1\r\n$600000000\r\n", err: "Protocol error: invalid bulk length"},
		{in: "\"abc\r\n", err: "Protocol error: unbalanced quotes in request"},
		{in: "'a'b\r\n", err: "Protocol error: unbalanced quotes in request"},
		{in: "*1\r\n$4\r\nPI", err: "incomplete request"},
		{in: "*1\r\n$04\r\nPING\r\n", err: "Protocol error: invalid bulk length"},
		{in: "*01\r\n$4\r\nPING\r\n", err: "Protocol error: invalid multibulk length"},
		{in: "*99999999999999999999\r\n", err: "Protocol error: invalid multibulk length"},
		{in: "*1\r\n$-0\r\n", err: "Protocol error: invalid bulk length"},
		{in: "*-1234567890123456789\r\n*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n", want: "PING"},
		{in: "*-9223372036854775809\r\n", err: "Protocol error: invalid multibulk length"},
		{in: "*1234567890123456789\r\n", err: "Protocol error: invalid multibulk length"},
		{in: "*1\r\n$1234567890123456789\r\n", err: "Protocol error: invalid bulk length"},
		{in: "*1\r\n$-1234567890123456789\r\n", err: "Protocol error: invalid bulk length"},
	} {
		got, err := parseAll(t, tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var parts []string
		for _, c := range got {
			parts = append(parts, strings.Join(c, ","))
		}
		if j := strings.Join(parts, "|"); j != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, j, tc.want)
		}
	}
}

func TestUnauthenticatedLimits(t *testing.T) {
	_, _, err := ParseRequest([]byte("*11\r\n"), nil, Limits{})
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Msg != "unauthenticated multibulk length" {
		t.Fatalf("got %v", err)
	}
	_, _, err = ParseRequest([]byte("*2\r\n$4\r\nPING\r\n$20000\r\n"), nil, Limits{})
	if !errors.As(err, &pe) || pe.Msg != "unauthenticated bulk length" {
		t.Fatalf("got %v", err)
	}
}

func TestWriterResp3Degrades(t *testing.T) {
	var w2, w3 Writer
	w3.Proto = 3
	for _, w := range []*Writer{&w2, &w3} {
		w.Map(1)
		w.BulkString("k")
		w.Double(1.5)
		w.Null()
		w.Bool(true)
	}
	if got := string(w2.B); got != "*2\r\n$1\r\nk\r\n$3\r\n1.5\r\n$-1\r\n:1\r\n" {
		t.Errorf("RESP2: %q", got)
	}
	if got := string(w3.B); got != "%1\r\n$1\r\nk\r\n,1.5\r\n_\r\n#t\r\n" {
		t.Errorf("RESP3: %q", got)
	}
}
