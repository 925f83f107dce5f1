package resp

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// maxReplyDepth bounds nesting so that a hostile peer cannot exhaust the
// stack.
const maxReplyDepth = 64

// readStep is how much of a bulk ReadReply reads at a time.
const readStep = 64 << 10

// ReadReply reads one complete RESP2 or RESP3 reply from r and appends its
// raw bytes to dst. It reads replies from other nodes, so it trusts
// nothing: nesting is bounded, a bulk may not be longer than
// DefaultMaxBulkLen, and memory grows only with the bytes received. An attribute (|) is read together with the reply it
// precedes; a push (>) counts as a reply.
func ReadReply(r *bufio.Reader, dst []byte) ([]byte, error) {
	return readReply(r, dst, 0)
}

func readReply(r *bufio.Reader, dst []byte, depth int) ([]byte, error) {
	if depth > maxReplyDepth {
		return dst, fmt.Errorf("resp: reply nested deeper than %d", maxReplyDepth)
	}
	line, err := r.ReadSlice('\n')
	if err != nil {
		return dst, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return dst, fmt.Errorf("resp: bad reply line %q", line)
	}
	dst = append(dst, line...)
	head := string(line[1 : len(line)-2])
	switch line[0] {
	case '+', '-', ':', ',', '#', '_', '(':
		return dst, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(head)
		if err != nil || n > DefaultMaxBulkLen {
			return dst, fmt.Errorf("resp: bad length %q", head)
		}
		if n < 0 {
			return dst, nil
		}
		// The buffer grows with the bytes that arrive, not with the
		// length the peer announced.
		for need := n + 2; need > 0; {
			k := min(need, readStep)
			start := len(dst)
			dst = slices.Grow(dst, k)[:start+k]
			if _, err := io.ReadFull(r, dst[start:]); err != nil {
				return dst[:start], err
			}
			need -= k
		}
		return dst, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(head)
		if err != nil {
			return dst, fmt.Errorf("resp: bad length %q", head)
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if dst, err = readReply(r, dst, depth+1); err != nil {
				return dst, err
			}
		}
		if line[0] == '|' {
			return readReply(r, dst, depth+1)
		}
		return dst, nil
	}
	return dst, fmt.Errorf("resp: unknown reply type %q", line[0])
}
