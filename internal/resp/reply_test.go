package resp

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadReply(t *testing.T) {
	replies := []string{
		"+OK\r\n", "-ERR x\r\n", ":12\r\n", "$3\r\nfoo\r\n", "$-1\r\n", "*-1\r\n", "$0\r\n\r\n",
		"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", "%1\r\n+k\r\n,1.5\r\n", "~2\r\n#t\r\n_\r\n",
		">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\n\r\n\r\n", "|1\r\n+a\r\n:1\r\n$1\r\nx\r\n",
		"=7\r\ntxt:abc\r\n", "(123\r\n", "!3\r\nerr\r\n",
	}
	r := bufio.NewReader(strings.NewReader(strings.Join(replies, "")))
	for _, want := range replies {
		got, err := ReadReply(r, nil)
		if err != nil || string(got) != want {
			t.Fatalf("ReadReply = %q, %v; want %q", got, err, want)
		}
	}
	for _, bad := range []string{"?x\r\n", "$x\r\n", "*2\r\n:1\r\n", "+OK\n", strings.Repeat("*1\r\n", 100) + ":1\r\n"} {
		if _, err := ReadReply(bufio.NewReader(strings.NewReader(bad)), nil); err == nil {
			t.Errorf("ReadReply(%q): no error", bad)
		}
	}
}
