package rdb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// redisDump is redis-server 7.0.15's FUNCTION DUMP of redisDumpCode: one
// FUNCTION2 record whose code is LZF-compressed, the RDB version and the
// CRC64.
const (
	redisDumpCode = "#!lua name=lib\n" +
		"redis.register_function('f1', function() return '" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + "' end)\n" +
		"redis.register_function('f2', function() return 'abcabcabcabcabcabcabcabcabcxyz' end)"
	redisDump = "f5c3405f41241f23216c7561206e616d653d6c69620a72656469732e72656769737465725f66750c6e6374696f6e28276631272c20e0000e0a292072657475726e202761e07e00052720656e6429e012bf0032e00ebf016263e00f020278797a40550164290a00d7dba6d9ca344ab7"
)

func TestRedisDump(t *testing.T) {
	want, err := hex.DecodeString(redisDump)
	if err != nil {
		t.Fatal(err)
	}
	b := AppendString([]byte{OpcodeFunction2}, []byte(redisDumpCode))
	b = append(b, Version, 0)
	b = binary.LittleEndian.AppendUint64(b, CRC64(0, b))
	if !bytes.Equal(b, want) {
		t.Fatalf("dump\n got %x\nwant %x", b, want)
	}
	code, rest, ok := ReadString(want[1:], math.MaxInt32)
	if !ok || string(code) != redisDumpCode || len(rest) != 10 {
		t.Fatalf("ReadString = %q, %d bytes left, %v", code, len(rest), ok)
	}
}

// TestCRC64 checks crc64.c's own test vector.
func TestCRC64(t *testing.T) {
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64 = %#x", got)
	}
	if got := CRC64(CRC64(0, []byte("1234")), []byte("56789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64 in two parts = %#x", got)
	}
}

func TestLen(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "00"}, {63, "3f"}, {64, "4040"}, {16383, "7fff"}, {16384, "8000004000"},
		{0xffffffff, "80ffffffff"}, {1 << 32, "810000000100000000"},
	} {
		b := AppendLen(nil, tc.n)
		if hex.EncodeToString(b) != tc.want {
			t.Errorf("AppendLen(%d) = %x, want %s", tc.n, b, tc.want)
		}
		n, enc, rest, ok := ReadLen(append(b, 'x'))
		if tc.n <= math.MaxInt32 && (!ok || enc || n != tc.n || string(rest) != "x") {
			t.Errorf("ReadLen(%x) = %d, %v, %q, %v", b, n, enc, rest, ok)
		}
		if tc.n > math.MaxInt32 && tc.n > 0xffffffff && ok {
			t.Errorf("ReadLen(%x) accepted %d", b, n)
		}
		if _, _, _, ok := ReadLen(b[:len(b)-1]); ok {
			t.Errorf("ReadLen(%x) truncated: ok", b[:len(b)-1])
		}
	}
	for _, in := range []string{"", "82", "bf"} {
		b, _ := hex.DecodeString(in)
		if _, _, _, ok := ReadLen(b); ok {
			t.Errorf("ReadLen(%s): ok", in)
		}
	}
}

func TestReadStringEncodings(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"c0ff", "-1"}, {"c07f", "127"}, {"c10080", "-32768"}, {"c2ffffff7f", "2147483647"},
		{"c200000080", "-2147483648"}, {"03616263", "abc"},
	} {
		b, _ := hex.DecodeString(tc.in)
		s, rest, ok := ReadString(b, 100)
		if !ok || string(s) != tc.want || len(rest) != 0 {
			t.Errorf("ReadString(%s) = %q, %x, %v; want %q", tc.in, s, rest, ok, tc.want)
		}
		if _, _, ok := ReadString(b[:len(b)-1], 100); ok {
			t.Errorf("ReadString(%x) truncated: ok", b[:len(b)-1])
		}
	}
	// Over max, an unknown encoding, an LZF body longer than the input.
	for _, in := range []string{"c3020561000000", "c4", "c30305610000"} {
		b, _ := hex.DecodeString(in)
		if _, _, ok := ReadString(b, 4); ok {
			t.Errorf("ReadString(%s): ok", in)
		}
	}
}

func TestLZFRoundTrip(t *testing.T) {
	for _, in := range []string{
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", strings.Repeat("abc", 1000), strings.Repeat("x", 70000),
		redisDumpCode, strings.Repeat("0123456789abcdef", 5000),
	} {
		c := LZFCompress([]byte(in), len(in)-4)
		if c == nil {
			t.Fatalf("LZFCompress(%d bytes of %.10q) = nil", len(in), in)
		}
		if d := LZFDecompress(c, len(in)); string(d) != in {
			t.Fatalf("round trip of %.10q: %d bytes back", in, len(d))
		}
		if d := LZFDecompress(c, len(in)-1); d != nil {
			t.Fatalf("LZFDecompress with a short length: %d bytes", len(d))
		}
	}
	if c := LZFCompress([]byte("abcdefghijklmnopqrstuvwxyz"), 22); c != nil {
		t.Fatalf("incompressible input compressed to %x", c)
	}
}

// FuzzLZF: what LZFCompress makes decompresses to its input, and
// LZFDecompress of anything neither panics nor makes more than it was
// asked for.
func FuzzLZF(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabcabcabc"), 30)
	f.Add([]byte{0x1f, 'a', 0xe0, 0xff, 0x00}, 300)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if c := LZFCompress(b, len(b)+LZFMaxExpansion); c != nil {
			if d := LZFDecompress(c, len(b)); !bytes.Equal(d, b) {
				t.Fatalf("round trip of %x: %x", b, d)
			}
		}
		if d := LZFDecompress(b, n); d != nil && len(d) != n {
			t.Fatalf("LZFDecompress(%x, %d) made %d bytes", b, n, len(d))
		}
	})
}
