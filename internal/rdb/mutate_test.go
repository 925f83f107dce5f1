package rdb

import (
	"math/rand"
	"testing"
)

// TestMutatedPayloads decodes seeded random mutations of every kind of
// payload (bytes changed, cut short; checksums fixed): no panic, and what
// decodes dumps and decodes to the same value.
func TestMutatedPayloads(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var seeds [][]byte
	for _, v := range testValues() {
		p := Payload(v, testDump)
		seeds = append(seeds, p[:len(p)-10])
	}
	lim := testLimits
	lim.MaxString = 1 << 16
	for i := 0; i < 5000; i++ {
		s := append([]byte(nil), seeds[r.Intn(len(seeds))]...)
		for k := 0; k < 1+r.Intn(4); k++ {
			s[r.Intn(len(s))] = byte(r.Intn(256))
		}
		if r.Intn(3) == 0 {
			s = s[:1+r.Intn(len(s)-1)]
		}
		v, err := DecodePayload(withFooter(s), lim)
		if err != nil {
			continue
		}
		again, err := DecodePayload(Payload(v, testDump), lim)
		if err != nil || canon(again) != canon(v) {
			t.Fatalf("%x: decoded, but its dump does not decode to it (%v)", s, err)
		}
	}
}
