package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/store"
)

var testLimits = Limits{
	HashMaxListpackEntries: 512, HashMaxListpackValue: 64,
	SetMaxIntsetEntries:    512,
	ZSetMaxListpackEntries: 128, ZSetMaxListpackValue: 64,
	MaxString: 1 << 20,
}

var testDump = DumpConfig{ListMaxListpackSize: -2}

// testValues is one value of every type and encoding.
func testValues() map[string]store.Value {
	vals := map[string]store.Value{}
	vals["int"] = store.NewString([]byte("-12345"))
	vals["embstr"] = store.NewString([]byte("hello"))
	vals["raw"] = store.NewString([]byte(strings.Repeat("abc", 100)))
	l := store.NewList()
	for i := 0; i < 3000; i++ {
		l.PushBack([]byte(fmt.Sprint("e", i, strings.Repeat("x", i%40))))
	}
	l.PushBack([]byte("77"))
	vals["list"] = l
	h := store.NewHash()
	h.Set([]byte("f"), []byte("1"), 512, 64)
	h.Set([]byte("g"), []byte("value"), 512, 64)
	vals["hash-lp"] = h
	h = store.NewHash()
	for i := 0; i < 600; i++ {
		h.Set([]byte(fmt.Sprint("f", i)), []byte(fmt.Sprint(i)), 512, 64)
	}
	vals["hash-ht"] = h
	s := store.NewSet()
	for _, m := range []string{"1", "-70000", "5000000000"} {
		s.Add([]byte(m), 512)
	}
	vals["intset"] = s
	s = store.NewSet()
	s.Add([]byte("a"), 512)
	s.Add([]byte("1"), 512)
	vals["set-ht"] = s
	z := store.NewZSet(false)
	for i, m := range []string{"a", "b", "c", "d"} {
		z.Add([]byte(m), []float64{1, 2.5, math.Inf(1), -1e300}[i], 0, 128, 64)
	}
	vals["zset-lp"] = z
	z = store.NewZSet(true)
	for i := 0; i < 200; i++ {
		z.Add([]byte(fmt.Sprint("m", i)), float64(i)/3, 0, 128, 64)
	}
	vals["zset-sl"] = z
	return vals
}

// canon is a comparable rendering of a value: type, encoding, contents
// (hashtable elements sorted).
func canon(v store.Value) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s/%s:", v.Type(), v.Encoding())
	var elems []string
	switch x := v.(type) {
	case *store.String:
		elems = append(elems, string(x.B))
	case *store.List:
		if n := x.Len(); n > 0 {
			x.Range(0, n-1, false, func(b []byte) { elems = append(elems, string(b)) })
		}
	case *store.Hash:
		x.Range(func(f, v []byte) bool { elems = append(elems, string(f)+"="+string(v)); return true })
	case *store.Set:
		x.Range(func(m []byte) bool { elems = append(elems, string(m)); return true })
	case *store.ZSet:
		x.Range(func(m string, s float64) { elems = append(elems, fmt.Sprint(m, "=", s)) })
	}
	if v.Encoding() == "hashtable" {
		sortStrings(elems)
	}
	sb.WriteString(strings.Join(elems, ","))
	return sb.String()
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for name, v := range testValues() {
		p := Payload(v, testDump)
		if !VerifyPayload(p) {
			t.Fatalf("%s: payload fails its own check", name)
		}
		got, err := DecodePayload(p, testLimits)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if canon(got) != canon(v) {
			t.Errorf("%s: round trip changed the value:\n%s\n%s", name, canon(v), canon(got))
		}
	}
}

func withFooter(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// TestHostile checks that lengths a payload claims are never allocated
// before the bytes are there.
func TestHostile(t *testing.T) {
	cases := map[string][]byte{
		"list count":   AppendLen([]byte{TypeList}, 0xffffffff),
		"zset count":   AppendLen([]byte{TypeZSet2}, 1<<30),
		"string len":   AppendLen([]byte{TypeString}, 1<<31),
		"lzf bomb":     append(AppendLen(AppendLen([]byte{TypeString, 0xC3}, 3), 1<<30), 0x1f, 0xe0, 0xff),
		"lzf too long": append(AppendLen(AppendLen([]byte{TypeString, 0xC3}, 3), 900), 0x00, 'a', 0xe0),
		"quicklist":    AppendLen([]byte{TypeListQuicklist2}, 1<<40),
		"intset":       append(AppendLen([]byte{TypeSetIntset}, 8), 8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff),
		"listpack":     append(AppendLen([]byte{TypeHashListpack}, 7), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
		"stream":       {TypeStreamListpacks, 0},
		"module":       {TypeModule2, 0},
		"empty set":    {TypeSet, 0},
		"unknown":      {200},
	}
	for name, b := range cases {
		if _, err := DecodePayload(withFooter(b), testLimits); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func TestDuplicatesRefused(t *testing.T) {
	str := func(b []byte, s string) []byte { return append(AppendLen(b, len(s)), s...) }
	set := str(str(AppendLen([]byte{TypeSet}, 2), "a"), "a")
	hash := str(str(str(str(AppendLen([]byte{TypeHash}, 2), "f"), "1"), "f"), "2")
	w := newListpack(0)
	for _, e := range []string{"f", "1", "f", "2"} {
		w.append([]byte(e))
	}
	hlp := str([]byte{TypeHashListpack}, string(w.finish()))
	for name, b := range map[string][]byte{"set": set, "hash": hash, "hash listpack": hlp} {
		if _, err := DecodePayload(withFooter(b), testLimits); err == nil {
			t.Errorf("%s with a duplicate decoded", name)
		}
	}
}

func TestListpackIntegers(t *testing.T) {
	w := newListpack(0)
	ints := []int64{0, 127, 128, -1, -4096, 4095, 4096, -32768, 32767, 32768, -8388608, 8388607, 8388608, math.MinInt32, math.MaxInt32, math.MaxInt32 + 1, math.MinInt64, math.MaxInt64}
	for _, n := range ints {
		w.appendInt(n)
	}
	w.append([]byte(strings.Repeat("s", 70)))
	w.append([]byte(strings.Repeat("t", 5000)))
	lp := w.finish()
	var got []string
	if !walkListpack(lp, func(e []byte) bool { got = append(got, string(e)); return true }) {
		t.Fatal("listpack does not walk")
	}
	for i, n := range ints {
		if got[i] != fmt.Sprint(n) {
			t.Errorf("element %d: %q, want %d", i, got[i], n)
		}
	}
	if len(got) != len(ints)+2 || len(got[len(got)-1]) != 5000 {
		t.Errorf("strings lost: %d elements", len(got))
	}
	// Every truncation of it is refused.
	for i := 0; i < len(lp)-1; i++ {
		if walkListpack(append(bytes.Clone(lp[:i]), 0xff), func([]byte) bool { return true }) {
			t.Errorf("truncated at %d: accepted", i)
		}
	}
}
