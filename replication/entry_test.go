package replication

import (
	"encoding/binary"
	"reflect"
	"runtime"
	"testing"

	"github.com/lockkv/lockkv/engine"
)

func TestEntryRoundTrip(t *testing.T) {
	en := &Entry{
		Time: 1764000000123,
		Seed: 0xdeadbeefcafef00d,
		Ops: []engine.Op{
			{Kind: engine.OpCommand, Origin: 42, Seq: 7, DB: 3, Proto: 3, Args: [][][]byte{{[]byte("SET"), []byte("k"), []byte("")}}},
			{Kind: engine.OpExec, Origin: 42, Seq: 8, Proto: 2, OOM: true, Args: [][][]byte{{[]byte("INCR"), []byte("a")}, {[]byte("EVAL"), []byte("return 1"), []byte("0")}}},
			{Kind: engine.OpExpire, Origin: 42, DB: 15, Args: [][][]byte{{[]byte("lease1"), []byte("lease2")}}},
			{Kind: engine.OpCommand, Origin: 42, Seq: 9, Proto: 2, OOM: true, Args: [][][]byte{{[]byte("HSET"), []byte("h"), []byte("f"), []byte("v")}},
				Settings: &engine.ApplySettings{ProtoMaxBulkLen: 1 << 20, HashMaxListpackEntries: 2, HashMaxListpackValue: 64, SetMaxIntsetEntries: 1 << 40, ZSetMaxListpackEntries: 0, ZSetMaxListpackValue: 64, LFU: true, LFULogFactor: 10, LFUDecayTime: 1}},
		},
		Nodes: []Member{{ID: "n1", ClientAddr: "10.0.0.1:6379"}, {ID: "n2"}},
	}
	b := appendEntry(nil, en)
	got, err := decodeEntry(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, en) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, en)
	}
	empty, err := decodeEntry(appendEntry(nil, &Entry{Time: -5}))
	if err != nil || empty.Time != -5 || empty.Ops != nil || empty.Nodes != nil {
		t.Fatalf("empty entry: %+v, %v", empty, err)
	}
	for i := 0; i < len(b); i++ {
		if _, err := decodeEntry(b[:i]); err == nil {
			t.Fatalf("truncated at %d of %d: no error", i, len(b))
		}
	}
	if _, err := decodeEntry(append(b, 0)); err == nil {
		t.Fatal("trailing byte: no error")
	}

	// A cluster ID rides after the members, only when set.
	withID := *en
	withID.ClusterID = []byte("0123456789abcdef")
	bi := appendEntry(nil, &withID)
	if string(bi[:len(b)]) != string(b) {
		t.Fatal("an entry's bytes before its cluster ID differ from the same entry's without")
	}
	if got, err := decodeEntry(bi); err != nil || !reflect.DeepEqual(got, &withID) {
		t.Fatalf("with a cluster ID: %+v, %v", got, err)
	}
	withID.ClusterID = []byte("short")
	if _, err := decodeEntry(appendEntry(nil, &withID)); err == nil {
		t.Fatal("a 5-byte cluster ID: no error")
	}
}

// FuzzDecodeEntry: any bytes decode to an error or an entry that encodes
// back to the same bytes; never a panic or a huge allocation.
func FuzzDecodeEntry(f *testing.F) {
	f.Add(appendEntry(nil, &Entry{Time: 1, Ops: []engine.Op{{Kind: engine.OpCommand, Args: [][][]byte{{[]byte("GET"), []byte("k")}}}}}))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		en, err := decodeEntry(b)
		if err != nil {
			return
		}
		if again := appendEntry(nil, en); string(again) != string(b) {
			// Varints have one canonical form only when minimal; a
			// decoded entry must at least decode the same again.
			en2, err := decodeEntry(again)
			if err != nil || !reflect.DeepEqual(en, en2) {
				t.Fatalf("re-encoding changed the entry: %v", err)
			}
		}
	})
}

// TestDecodeEntryHostileLengths: counts and lengths an entry cannot back
// are refused before anything of their size is allocated.
func TestDecodeEntryHostileLengths(t *testing.T) {
	head := func() []byte {
		b := []byte{entryVersion}
		b = binary.AppendVarint(b, 1)
		return binary.LittleEndian.AppendUint64(b, 0)
	}
	op := func(b []byte) []byte { // an op header: kind, proto, origin, seq, db
		b = append(b, byte(engine.OpCommand), 2)
		b = binary.LittleEndian.AppendUint64(b, 1)
		return append(b, 1, 0)
	}
	huge := uint64(1) << 40
	cases := map[string][]byte{
		"ops":                        binary.AppendUvarint(head(), huge),
		"commands":                   binary.AppendUvarint(op(binary.AppendUvarint(head(), 1)), huge),
		"arguments":                  binary.AppendUvarint(op(binary.AppendUvarint(head(), 1)), 1),
		"nodes":                      binary.AppendUvarint(binary.AppendUvarint(head(), 0), huge),
		"db":                         binary.AppendUvarint(append(binary.AppendUvarint(head(), 1), byte(engine.OpCommand), 2, 1, 2, 3, 4, 5, 6, 7, 8, 1), 1<<63),
		"ops just over what is left": append(binary.AppendUvarint(head(), 2), make([]byte, minOpSize+1)...),
	}
	cases["arguments"] = binary.AppendUvarint(binary.AppendUvarint(cases["arguments"], 1), huge)
	// A count as large as the bytes left, each too short for an op: 64
	// bytes of Op per byte of entry if believed.
	cases["an op per byte"] = append(binary.AppendUvarint(head(), 1<<17), make([]byte, 1<<17)...)
	for name, b := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		en, err := decodeEntry(b)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: decoded %+v", name, en)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<16 {
			t.Errorf("%s: allocated %d bytes for a %d-byte entry", name, n, len(b))
		}
	}
}

// BenchmarkDecodeEntry decodes an entry of sixteen lock scripts' EVALSHA
// ops, as a follower does for each entry it applies.
func BenchmarkDecodeEntry(b *testing.B) {
	en := &Entry{Time: 1764000000123, Seed: 7}
	for i := 0; i < 16; i++ {
		en.Ops = append(en.Ops, engine.Op{Kind: engine.OpCommand, Origin: 42, Seq: uint64(i), Proto: 2, Args: [][][]byte{{
			[]byte("EVALSHA"), []byte("e8a2a8d1a0a5bd7b1a0c4e7ba2b3c8d1f0e9a6b5"), []byte("2"), []byte("lock:" + string(rune('a'+i))),
			[]byte("redisson_lock__channel:{lock}"), []byte("0"), []byte("30000"), []byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1"),
		}}})
	}
	data := appendEntry(nil, en)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decodeEntry(data); err != nil {
			b.Fatal(err)
		}
	}
}
