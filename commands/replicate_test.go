package commands

import "testing"

func TestSortForScript(t *testing.T) {
	for _, tc := range []struct {
		cmd, in, want string
	}{
		{"smembers", "*3\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"smembers", "~2\r\n$2\r\nzz\r\n$2\r\naa\r\n", "~2\r\n$2\r\naa\r\n$2\r\nzz\r\n"},
		{"hgetall", "*4\r\n$1\r\nf\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n2\r\n", "*4\r\n$1\r\na\r\n$1\r\n2\r\n$1\r\nf\r\n$1\r\n1\r\n"},
		{"hgetall", "%2\r\n$1\r\nf\r\n:1\r\n$1\r\na\r\n:2\r\n", "%2\r\n$1\r\na\r\n:2\r\n$1\r\nf\r\n:1\r\n"},
		{"get", "$1\r\nx\r\n", "$1\r\nx\r\n"},
		{"zrange", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n"}, // ordered already: untouched
		{"smembers", "-WRONGTYPE x\r\n", "-WRONGTYPE x\r\n"},
	} {
		if got := string(sortForScript(Lookup([]byte(tc.cmd)), []byte(tc.in))); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.cmd, tc.in, got, tc.want)
		}
	}
}
