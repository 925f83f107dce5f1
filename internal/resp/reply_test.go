package resp

import (
	"bufio"
	"bytes"
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

// FuzzReadReply: replies read from other nodes never panic, never take
// more memory than the bytes that came (a huge announced length is not
// allocated), and a reply read is exactly the bytes it took.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "$3\r\nfoo\r\n", "*2\r\n$1\r\na\r\n*1\r\n:1\r\n", "%1\r\n+k\r\n,1.5\r\n",
		"|1\r\n+a\r\n:1\r\n$1\r\nx\r\n", "$9999999999\r\n", "*99999999\r\n:1\r\n", ">3\r\n$7\r\nmessage\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		src := bytes.NewReader(b)
		r := bufio.NewReaderSize(src, 16)
		for {
			out, err := ReadReply(r, nil)
			// A step is taken ahead of the bytes (rounded up to
			// an allocation size class); the rest grows with them.
			if cap(out) > 2*len(b)+2*readStep {
				t.Fatalf("%d bytes held for a %d byte input", cap(out), len(b))
			}
			if err != nil {
				return
			}
			consumed := len(b) - src.Len() - r.Buffered()
			if !bytes.HasSuffix(b[:consumed], out) {
				t.Fatalf("reply %q is not the bytes read", out)
			}
		}
	})
}
