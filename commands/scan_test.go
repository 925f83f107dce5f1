package commands

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

func TestParseScanCursor(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"17", 17, true}, {"007", 7, true},
		{"+5", 5, true}, {"-1", math.MaxUint64, true}, {"-0", 0, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"-18446744073709551615", 1, true},
		{"18446744073709551616", 0, false}, {"-18446744073709551616", 0, false},
		{"x", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"-", 0, false},
		{"+", 0, false}, {"0x1", 0, false}, {"1.0", 0, false}, {"+-1", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseScanCursor([]byte(c.in))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseScanCursor(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseScanCursor(f *testing.F) {
	f.Add("123")
	f.Add("-1")
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseScanCursor([]byte(s))
		if ok && len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			// Plain decimal: must round-trip modulo leading zeros.
			var w uint64
			for i := 0; i < len(s); i++ {
				w = w*10 + uint64(s[i]-'0')
			}
			if w != v {
				t.Fatalf("%q: %d != %d", s, v, w)
			}
		}
	})
}

// stableScan (the SCAN family inside replicated ops) returns every item
// once when nothing changes, pages of at most count, a nonzero cursor until
// the last page, and the same pages whatever order the items come in.
func TestStableScan(t *testing.T) {
	var items []string
	for i := 0; i < 1000; i++ {
		items = append(items, "k"+strconv.Itoa(i))
	}
	key := func(s string) []byte { return []byte(s) }
	walk := func(items []string) []string {
		var got []string
		cursor := uint64(0)
		for calls := 0; ; calls++ {
			if calls > 1000 {
				t.Fatal("the scan does not end")
			}
			var page []string
			cursor, page = stableScan(cursor, 7, items, key)
			if len(page) > 7 {
				t.Fatalf("page of %d items with COUNT 7", len(page))
			}
			got = append(got, page...)
			if cursor == 0 {
				return got
			}
		}
	}
	a := walk(items)
	rev := slices.Clone(items)
	slices.Reverse(rev)
	b := walk(rev)
	if !slices.Equal(a, b) {
		t.Fatal("the order depends on the items' order")
	}
	sorted := slices.Clone(a)
	slices.Sort(sorted)
	want := slices.Clone(items)
	slices.Sort(want)
	if !slices.Equal(sorted, want) {
		t.Fatalf("got %d items, want each of %d once", len(a), len(items))
	}
	// An element present throughout is returned even if others come and go
	// between calls.
	cursor, page := stableScan(0, 100, items, key)
	more := append(slices.Clone(items[500:]), "new1", "new2")
	seen := map[string]bool{}
	for _, p := range page {
		seen[p] = true
	}
	for cursor != 0 {
		cursor, page = stableScan(cursor, 100, more, key)
		for _, p := range page {
			seen[p] = true
		}
	}
	for _, it := range items[500:] {
		if !seen[it] {
			t.Fatalf("%s, present throughout, was not returned", it)
		}
	}
}
