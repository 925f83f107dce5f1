package resp

import (
	"strconv"
	"testing"
)

// BenchmarkParsePipeline parses a pipeline of 16 SETs of 32-byte values,
// as a reader does, one request after the other from one buffer.
func BenchmarkParsePipeline(b *testing.B) {
	var buf []byte
	for i := 0; i < 16; i++ {
		k := "key:" + strconv.Itoa(i)
		buf = append(buf, "*3\r\n$3\r\nSET\r\n$"+strconv.Itoa(len(k))+"\r\n"+k+"\r\n$32\r\n01234567890123456789012345678901\r\n"...)
	}
	argv := make([][]byte, 0, 64)
	lim := Limits{Authenticated: true}
	var p Parser
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for pos := 0; pos < len(buf); {
			args, n, err := p.Parse(buf[pos:], argv, lim)
			if err != nil || len(args) != 3 {
				b.Fatal(err)
			}
			pos += n
		}
	}
}
