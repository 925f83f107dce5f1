package rdb

import (
	"testing"
)

// FuzzRestorePayload feeds arbitrary values to the payload reader, with
// and without a valid footer: it must never panic, and whatever it
// accepts must write and read back to the same value.
func FuzzRestorePayload(f *testing.F) {
	for _, v := range testValues() {
		p := Payload(v, testDump)
		f.Add(p[:len(p)-10])
	}
	for _, b := range [][]byte{
		{TypeString, 0xC0, 5}, {TypeList, 1, 1, 'a'}, {TypeSet, 1, 1, '5'},
		{TypeZSet, 1, 1, 'a', 3, '1', '.', '5'}, {TypeHash, 1, 1, 'f', 1, 'v'},
	} {
		f.Add(b)
	}
	lim := testLimits
	lim.MaxString = 1 << 16
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range [][]byte{withFooter(append([]byte(nil), body...)), body} {
			if !VerifyPayload(p) {
				continue
			}
			v, err := DecodePayload(p, lim)
			if err != nil {
				continue
			}
			again, err := DecodePayload(Payload(v, testDump), lim)
			if err != nil {
				t.Fatalf("accepted %x, but not its own dump: %v", p, err)
			}
			if canon(again) != canon(v) {
				t.Fatalf("%x: dump changed the value\n%s\n%s", p, canon(v), canon(again))
			}
		}
	})
}
