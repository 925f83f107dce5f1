package replication

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/lockkv/lockkv/engine"
)

// Entry is what one Raft log entry carries: the ops the leader proposed in
// one go, the leader's clock reading that is "now" for all of them on every
// node, the seed of every random choice they make, changes to the member
// registry (client addresses), and once in a cluster's life its ID.
type Entry struct {
	Time  int64 // Unix ms
	Seed  uint64
	Ops   []engine.Op
	Nodes []Member
	// ClusterID, when set, is the cluster's ID (idSize bytes): the first
	// leader of a new cluster proposes it, and the first one in the log is
	// the cluster's. It is encoded after the members only when set, so
	// entries without it keep their bytes.
	ClusterID []byte
}

// Member is a registry record (the registry is the engine's, see
// engine.Member).
type Member = engine.Member

const entryVersion = 1

// opOOM marks, in an op's kind byte, an op proposed over maxmemory
// (engine.Op.OOM); entries written before it existed never set it.
const opOOM = 0x80

// opSettings marks, in an op's kind byte, an op that carries its leader's
// settings (engine.Op.Settings), encoded after its database as a count
// of numbers then the numbers (varints, in ApplySettings' order), so that
// later releases can append some; entries written before it existed never
// set it, and their ops apply with the defaults.
const opSettings = 0x40

// settingsFields is how many numbers encode engine.ApplySettings.
const settingsFields = 9

func appendSettings(b []byte, s *engine.ApplySettings) []byte {
	lfu := int64(0)
	if s.LFU {
		lfu = 1
	}
	b = binary.AppendUvarint(b, settingsFields)
	for _, v := range [settingsFields]int64{s.ProtoMaxBulkLen, int64(s.HashMaxListpackEntries), int64(s.HashMaxListpackValue),
		int64(s.SetMaxIntsetEntries), int64(s.ZSetMaxListpackEntries), int64(s.ZSetMaxListpackValue), lfu,
		int64(s.LFULogFactor), int64(s.LFUDecayTime)} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func (d *decoder) settings() *engine.ApplySettings {
	n := d.uvarint()
	if n != settingsFields {
		d.fail()
		return nil
	}
	var v [settingsFields]int64
	for i := range v {
		v[i] = d.varint()
	}
	if v[6] > 1 {
		d.fail()
	}
	// The bounds of each setting are checked where the op applies
	// (commands: an op out of them is refused on every node).
	return &engine.ApplySettings{ProtoMaxBulkLen: v[0], HashMaxListpackEntries: int(v[1]), HashMaxListpackValue: int(v[2]),
		SetMaxIntsetEntries: int(v[3]), ZSetMaxListpackEntries: int(v[4]), ZSetMaxListpackValue: int(v[5]), LFU: v[6] == 1,
		LFULogFactor: int(v[7]), LFUDecayTime: int(v[8])}
}

var errEntry = errors.New("replication: malformed log entry")

// appendEntry encodes en after b.
func appendEntry(b []byte, en *Entry) []byte {
	b = append(b, entryVersion)
	b = binary.AppendVarint(b, en.Time)
	b = binary.LittleEndian.AppendUint64(b, en.Seed)
	b = binary.AppendUvarint(b, uint64(len(en.Ops)))
	for i := range en.Ops {
		op := &en.Ops[i]
		kind := byte(op.Kind)
		if op.OOM {
			kind |= opOOM
		}
		if op.Settings != nil {
			kind |= opSettings
		}
		b = append(b, kind, byte(op.Proto))
		b = binary.LittleEndian.AppendUint64(b, op.Origin)
		b = binary.AppendUvarint(b, op.Seq)
		b = binary.AppendUvarint(b, uint64(op.DB))
		if op.Settings != nil {
			b = appendSettings(b, op.Settings)
		}
		b = binary.AppendUvarint(b, uint64(len(op.Args)))
		for _, cmd := range op.Args {
			b = binary.AppendUvarint(b, uint64(len(cmd)))
			for _, a := range cmd {
				b = binary.AppendUvarint(b, uint64(len(a)))
				b = append(b, a...)
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(en.Nodes)))
	for _, m := range en.Nodes {
		b = appendString(b, m.ID)
		b = appendString(b, m.ClientAddr)
	}
	if len(en.ClusterID) > 0 {
		b = appendString(b, string(en.ClusterID))
	}
	return b
}

// EncodeEntry returns en in the log's format (tools and tests that write
// entries as a leader would).
func EncodeEntry(en *Entry) []byte { return appendEntry(nil, en) }

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeEntry decodes an entry. The ops' arguments point into data, which
// must stay unchanged while they are used.
func decodeEntry(data []byte) (*Entry, error) {
	d := decoder{b: data}
	if d.byte() != entryVersion {
		return nil, errEntry
	}
	en := &Entry{Time: d.varint(), Seed: d.u64()}
	n := d.count(minOpSize)
	if n > 0 {
		en.Ops = make([]engine.Op, n)
	}
	// The ops' commands and their arguments are cut from a few shared
	// arrays rather than allocated one by one.
	var vecs chunks[[][]byte]
	var argv chunks[[]byte]
	args := 0 // arguments so far
	for i := range en.Ops {
		op := &en.Ops[i]
		left := len(en.Ops) - i - 1 // ops after this one
		kind := d.byte()
		op.Kind, op.OOM = engine.OpKind(kind&^(opOOM|opSettings)), kind&opOOM != 0
		op.Proto = int(d.byte())
		op.Origin = d.u64()
		op.Seq = d.uvarint()
		db := d.uvarint()
		if db > math.MaxInt32 {
			d.fail() // no such database anywhere; int(db) could be negative
		}
		op.DB = int(db)
		if kind&opSettings != 0 {
			op.Settings = d.settings()
		}
		c := d.count(1)
		op.Args = vecs.take(c, c+left, &d)
		for j := range op.Args {
			na := d.count(1)
			args += na
			// Enough for the ops left if they are like those so far.
			cmd := argv.take(na, na+left*(args/(i+1)), &d)
			for k := range cmd {
				cmd[k] = d.bytes()
			}
			op.Args[j] = cmd
		}
	}
	if n := d.count(2); n > 0 {
		en.Nodes = make([]Member, n)
		for i := range en.Nodes {
			en.Nodes[i] = Member{ID: string(d.bytes()), ClientAddr: string(d.bytes())}
		}
	}
	if len(d.b) > 0 {
		if en.ClusterID = d.bytes(); len(en.ClusterID) != idSize {
			return nil, errEntry
		}
	}
	if d.err || len(d.b) != 0 {
		return nil, errEntry
	}
	return en, nil
}

// chunks hands out slices cut from shared arrays, each capped at its
// length (an append to one never reaches the next), so that an entry
// takes a few allocations for all its ops' commands and arguments.
type chunks[T any] struct{ free []T }

// take returns n elements; when the array in use has too few left, a new
// one holds want (what the entry is expected to need still), never more
// than a slice header per byte left in the entry: as each count the
// decoder reads, bounded by the entry's own size.
func (c *chunks[T]) take(n, want int, d *decoder) []T {
	if n == 0 {
		return []T{}
	}
	if len(c.free) < n {
		c.free = make([]T, max(n, min(want, len(d.b)+n)))
	}
	v := c.free[:n:n]
	c.free = c.free[n:]
	return v
}

type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.err = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.err = true
		d.b = nil
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) uvarint() uint64 {
	// Most numbers of an entry (counts, lengths) take one byte.
	if len(d.b) > 0 && d.b[0] < 0x80 {
		v := d.b[0]
		d.b = d.b[1:]
		return uint64(v)
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = true
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = true
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// minOpSize is the fewest bytes an encoded op takes.
const minOpSize = 1 + 1 + 8 + 1 + 1 + 1

// count reads a number of items of at least size bytes each, which what
// is left must hold: a corrupt or hostile entry cannot make an allocation
// larger than a small multiple of its own size (a slice header per byte).
func (d *decoder) count(size int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/size) {
		d.fail()
		return 0
	}
	return int(v)
}

// fail marks the entry malformed; every later read returns zero.
func (d *decoder) fail() {
	d.err = true
	d.b = nil
}

func (d *decoder) bytes() []byte {
	n := d.count(1)
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}
