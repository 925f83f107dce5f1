package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc64"
	"math"
	"strconv"
	"strings"
	"testing"
)

// encode returns the bytes Encoder writes for the entries (in order).
func encode(t testing.TB, canonical bool, keys []string, ents []*Entry) []byte {
	t.Helper()
	w := NewEncoder(nil)
	w.Canonical = canonical
	for i, k := range keys {
		w.Entry(k, ents[i])
	}
	chunks, n := w.Chunks()
	b := bytes.Join(chunks, nil)
	if int64(len(b)) != n {
		t.Fatalf("Chunks size %d, joined %d", n, len(b))
	}
	return b
}

// testValues returns one value of every type and encoding.
func testValues() ([]string, []*Entry) {
	lp := NewHash()
	lp.Set([]byte("z"), []byte("1"), 512, 64)
	lp.Set([]byte("a"), []byte("2"), 512, 64)
	ht := NewHash()
	for i := 0; i < 600; i++ {
		ht.Set([]byte("f"+strconv.Itoa(i)), []byte(strconv.Itoa(i)), 512, 64)
	}
	l := NewList()
	l.PushBack([]byte("b"))
	l.PushFront([]byte("a"))
	l.PushBack(bytes.Repeat([]byte("x"), 3<<20)) // beyond one read step
	is := NewSet()
	for _, m := range []string{"9", "-1", "4"} {
		is.Add([]byte(m), 512)
	}
	hs := NewSet()
	for _, m := range []string{"x", "y", "1"} {
		hs.Add([]byte(m), 512)
	}
	zl := NewZSet(false)
	zl.Add([]byte("b"), 2, 0, 128, 64)
	zl.Add([]byte("a"), math.Inf(-1), 0, 128, 64)
	zs := NewZSet(true)
	zs.Add([]byte("m"), math.Copysign(0, -1), 0, 128, 64)
	zs.Add([]byte("n"), 1e300, 0, 128, 64)
	raw := NewString([]byte("abc"))
	raw.Raw = true
	keys := []string{"s", "raw", "big", "hlp", "hht", "l", "is", "hs", "zl", "zs"}
	vals := []Value{NewString([]byte("123")), raw, NewString(bytes.Repeat([]byte("y"), 5<<20)), lp, ht, l, is, hs, zl, zs}
	ents := make([]*Entry, len(vals))
	for i, v := range vals {
		ents[i] = &Entry{Value: v, Expire: int64(i) * 1000}
	}
	return keys, ents
}

func TestEncoderDecoderRoundTrip(t *testing.T) {
	keys, ents := testValues()
	b := encode(t, false, keys, ents)
	crc := crc64.New(crc64.MakeTable(crc64.ECMA))
	d := NewDecoder(bytes.NewReader(b), crc)
	var gotKeys []string
	var gotEnts []*Entry
	for range keys {
		k, v, exp, err := d.Entry()
		if err != nil {
			t.Fatal(err)
		}
		gotKeys = append(gotKeys, k)
		gotEnts = append(gotEnts, &Entry{Value: v, Expire: exp})
		if v.Encoding() != ents[len(gotEnts)-1].Value.Encoding() {
			t.Errorf("%s: encoding %s, want %s", k, v.Encoding(), ents[len(gotEnts)-1].Value.Encoding())
		}
	}
	if eof, err := d.AtEOF(); !eof || err != nil {
		t.Fatalf("not at EOF: %v", err)
	}
	if d.Sum() != crc64.Checksum(b, crc64.MakeTable(crc64.ECMA)) {
		t.Fatal("running checksum differs")
	}
	// Element order is kept where the encoding defines it; hashtables
	// compare sorted.
	if !bytes.Equal(encode(t, true, gotKeys, gotEnts), encode(t, true, keys, ents)) {
		t.Fatal("canonical encodings differ")
	}
	if _, score := gotEnts[9].Value.(*ZSet).Nth(0); !math.Signbit(score) {
		t.Fatal("-0 score lost in the skiplist")
	}
}

func TestDecoderRejects(t *testing.T) {
	entry := func(typ Type, value ...byte) []byte {
		b := []byte{byte(typ), 1, 'k', 0}
		return append(b, value...)
	}
	huge := binary.AppendUvarint(nil, 1<<39)
	for name, b := range map[string][]byte{
		"unknown type":          {9, 1, 'k', 0},
		"negative deadline":     {byte(TypeString), 1, 'k', 1, 0, 1, 'v'},
		"string flags":          entry(TypeString, 4, 1, 'v'),
		"huge string":           entry(TypeString, append([]byte{0}, huge...)...),
		"huge list":             entry(TypeList, huge...),
		"listpack past its end": entry(TypeHash, 0, 4, 1, 'f', 5, 'v'),
		"listpack odd":          entry(TypeHash, 0, 2, 1, 'f'),
		"listpack duplicate":    entry(TypeHash, 0, 8, 1, 'f', 1, 'v', 1, 'f', 1, 'w'),
		"hashtable duplicate":   entry(TypeHash, 1, 2, 1, 'f', 1, 'v', 1, 'f', 1, 'w'),
		"intset order":          entry(TypeSet, 0, 2, 4, 2),
		"set duplicate":         entry(TypeSet, 1, 2, 1, 'a', 1, 'a'),
		"zset order":            entry(TypeZSet, 0, 2, 1, 'b', 0, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 0),
		"zset NaN":              entry(TypeZSet, 1, 1, 1, 'a', 1, 0, 0, 0, 0, 0, 0xf8, 0x7f),
		"bad encoding":          entry(TypeSet, 2, 0),
		"bad varint":            append([]byte{byte(TypeString)}, bytes.Repeat([]byte{0xff}, 11)...),
	} {
		_, _, _, err := NewDecoder(bytes.NewReader(b), nil).Entry()
		if !errors.Is(err, ErrCorruptSnapshot) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Every truncation of a good entry is an error, never a panic.
	keys, ents := testValues()
	b := encode(t, false, keys[:1], ents[:1])
	b = append(b, encode(t, false, []string{"hlp"}, ents[3:4])...)
	for n := 0; n < len(b); n++ {
		d := NewDecoder(bytes.NewReader(b[:n]), nil)
		_, _, _, err := d.Entry()
		if err == nil {
			_, _, _, err = d.Entry()
		}
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
}

// FuzzDecoder: any bytes decode to entries and then an error or the end,
// never a panic or an allocation the input does not back, and every
// entry decoded is a well-formed value: encoded again, it decodes to the
// same thing.
func FuzzDecoder(f *testing.F) {
	keys, ents := testValues()
	small := []int{0, 1, 3, 4, 5, 6, 7, 8, 9} // the values without megabytes
	for _, i := range small {
		e := *ents[i]
		if l, ok := e.Value.(*List); ok {
			l2 := NewList()
			l2.PushBack(l.Index(0))
			e.Value = l2
		}
		f.Add(encode(f, false, keys[i:i+1], []*Entry{&e}))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(bytes.NewReader(b), nil)
		for i := 0; i < 64; i++ {
			k, v, exp, err := d.Entry()
			if err != nil {
				if !errors.Is(err, ErrCorruptSnapshot) {
					t.Fatalf("error %v is not ErrCorruptSnapshot", err)
				}
				return
			}
			ent := []*Entry{{Value: v, Expire: exp}}
			once := encode(t, true, []string{k}, ent)
			k2, v2, exp2, err := NewDecoder(bytes.NewReader(once), nil).Entry()
			if err != nil {
				t.Fatalf("%s re-encoded does not decode: %v", k, err)
			}
			if again := encode(t, true, []string{k2}, []*Entry{{Value: v2, Expire: exp2}}); !bytes.Equal(once, again) {
				t.Fatalf("%s: re-encoding changed it", k)
			}
			if eof, _ := d.AtEOF(); eof {
				return
			}
		}
	})
}
