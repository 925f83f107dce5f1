package rdb

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/store"
)

func writeTestFile(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewFileWriter(&buf)
	w.Aux("redis-ver", "7.0.15")
	w.Function([]byte("#!lua name=l\nredis.register_function('f', function() return 1 end)"))
	vals := testValues()
	w.SelectDB(0, len(vals), 1)
	for name, v := range vals {
		exp := int64(0)
		if name == "int" {
			exp = 1_900_000_000_000
		}
		w.Key("k:"+name, v, exp, testDump)
	}
	w.SelectDB(5, 1, 0)
	w.Key("five", store.NewString([]byte("5")), 0, testDump)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFileRoundTrip(t *testing.T) {
	b := writeTestFile(t)
	if !bytes.HasPrefix(b, []byte("REDIS0010")) {
		t.Fatalf("header %q", b[:9])
	}
	vals := testValues()
	seen := map[string]bool{}
	var aux []string
	funcs := 0
	err := ReadFile(b, testLimits, FileHandler{
		Aux:      func(k, v []byte) { aux = append(aux, string(k)+"="+string(v)) },
		Function: func(code []byte) error { funcs++; return nil },
		Key: func(db int, key []byte, exp int64, v store.Value, raw []byte) error {
			k := string(key)
			seen[k] = true
			if k == "five" {
				if db != 5 {
					t.Errorf("five in db %d", db)
				}
				return nil
			}
			want := vals[strings.TrimPrefix(k, "k:")]
			if canon(v) != canon(want) {
				t.Errorf("%s: %s, want %s", k, canon(v), canon(want))
			}
			if (k == "k:int") != (exp == 1_900_000_000_000) {
				t.Errorf("%s: deadline %d", k, exp)
			}
			// raw is the value's payload body: it decodes alone.
			if got, err := DecodePayload(withFooter(append([]byte(nil), raw...)), testLimits); err != nil || canon(got) != canon(v) {
				t.Errorf("%s: raw does not decode: %v", k, err)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(vals)+1 || funcs != 1 || len(aux) != 1 {
		t.Fatalf("read %d keys, %d functions, aux %v", len(seen), funcs, aux)
	}
}

func TestFileRefused(t *testing.T) {
	good := writeTestFile(t)
	bad := map[string][]byte{
		"empty":     {},
		"magic":     append([]byte("RDIS"), good[4:]...),
		"version":   append([]byte("REDIS0011"), good[9:]...),
		"truncated": good[:len(good)-20],
		"no eof":    good[:len(good)-9],
	}
	sum := append([]byte(nil), good...)
	sum[len(sum)-1] ^= 1
	bad["checksum"] = sum
	flip := append([]byte(nil), good...)
	flip[40] ^= 0xff
	bad["flipped"] = flip
	for name, b := range bad {
		if err := ReadFile(b, testLimits, FileHandler{}); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	// A zero checksum is "not computed" (rdbchecksum no).
	zero := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(zero[len(zero)-8:], 0)
	if err := ReadFile(zero, testLimits, FileHandler{}); err != nil {
		t.Errorf("zero checksum: %v", err)
	}
}
