package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"sort"

	"github.com/lockkv/lockkv/internal/dict"
)

// Snapshot encoding of keys and values. engine.Engine frames a whole
// snapshot (header, databases, scripts, checksum); this file knows how each
// type is written and read back with the same encoding and, where Redis
// defines it, the same element order:
//
//	entry   = type:byte key:str expire:varint value
//	str     = len:uvarint bytes
//	string  = flags:byte (1 raw, 2 notint) bytes:str
//	hash    = 0 listpack:str (the listpack's own bytes, insertion order)
//	        | 1 n:uvarint (field:str value:str)*n
//	list    = n:uvarint elem:str*n
//	set     = 0 n:uvarint int:varint*n (ascending)
//	        | 1 n:uvarint member:str*n
//	zset    = 0|1 n:uvarint (member:str score:float64 LE)*n (ascending)
//
// Keys already expired keep their deadline: whoever applies the snapshot
// decides their expiry. The last access time is not kept.

// ErrCorruptSnapshot is returned for a snapshot stream that does not
// decode; the error wraps it with the detail.
var ErrCorruptSnapshot = errors.New("corrupt snapshot")

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorruptSnapshot, fmt.Sprintf(format, a...))
}

// Encoder appends the snapshot encoding to a list of chunks, so a large
// snapshot never needs one contiguous buffer nor the copies of a growing
// one. With a sink set, full chunks are handed to it and the buffer reused
// (Digest hashes them).
type Encoder struct {
	chunks [][]byte
	b      []byte
	n      int64
	sink   func([]byte)
	// Canonical writes hashtable-encoded hashes and sets in sorted order
	// (their table order is unspecified and differs between processes), so
	// two equal keyspaces encode to the same bytes.
	Canonical bool
	scratch   []string
	touched   uint64 // keeps Entries' loads from being optimised away
}

// encoderChunk is the size of one chunk.
const encoderChunk = 1 << 20

// NewEncoder returns an Encoder that keeps its chunks (see Chunks), or,
// when sink is not nil, hands each full chunk to sink, which must not keep
// it.
func NewEncoder(sink func([]byte)) *Encoder { return &Encoder{sink: sink} }

// room makes sure the current chunk can take n more bytes without growing.
func (w *Encoder) room(n int) {
	if cap(w.b)-len(w.b) >= n {
		return
	}
	w.flush()
	if w.sink != nil && cap(w.b) >= n {
		return
	}
	w.b = make([]byte, 0, max(n, encoderChunk))
}

func (w *Encoder) flush() {
	if len(w.b) == 0 {
		return
	}
	w.n += int64(len(w.b))
	if w.sink != nil {
		w.sink(w.b)
		w.b = w.b[:0]
		return
	}
	w.chunks = append(w.chunks, w.b)
	w.b = nil
}

// Chunks ends the encoding and returns the chunks and their total size.
func (w *Encoder) Chunks() ([][]byte, int64) {
	w.flush()
	return w.chunks, w.n
}

// Append ends o's encoding and appends its chunks after what w holds.
// Neither may have a sink.
func (w *Encoder) Append(o *Encoder) {
	w.flush()
	chunks, n := o.Chunks()
	w.chunks = append(w.chunks, chunks...)
	w.n += n
}

// Byte writes one byte.
func (w *Encoder) Byte(c byte) {
	w.room(1)
	w.b = append(w.b, c)
}

// Raw writes b as is.
func (w *Encoder) Raw(b []byte) {
	w.room(len(b))
	w.b = append(w.b, b...)
}

// Uvarint writes u.
func (w *Encoder) Uvarint(u uint64) {
	w.room(binary.MaxVarintLen64)
	w.b = binary.AppendUvarint(w.b, u)
}

// Varint writes i (zig-zag).
func (w *Encoder) Varint(i int64) {
	w.room(binary.MaxVarintLen64)
	w.b = binary.AppendVarint(w.b, i)
}

// Bytes writes b prefixed by its length.
func (w *Encoder) Bytes(b []byte) {
	w.room(binary.MaxVarintLen64 + len(b))
	w.b = binary.AppendUvarint(w.b, uint64(len(b)))
	w.b = append(w.b, b...)
}

// String writes s prefixed by its length.
func (w *Encoder) String(s string) { w.Bytes(s2b(s)) }

func (w *Encoder) float(f float64) {
	w.room(8)
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(f))
}

// Entry writes one key with its value and deadline.
func (w *Encoder) Entry(key string, e *Entry) {
	w.Byte(byte(e.Value.Type()))
	w.String(key)
	w.Varint(e.Expire)
	switch v := e.Value.(type) {
	case *String:
		var flags byte
		if v.Raw {
			flags |= 1
		}
		if v.NotInt {
			flags |= 2
		}
		w.Byte(flags)
		w.Bytes(v.B)
	case *Hash:
		w.hash(v)
	case *List:
		w.Uvarint(uint64(v.n))
		for i := 0; i < v.n; i++ {
			w.Bytes(v.Index(i))
		}
	case *Set:
		w.set(v)
	case *ZSet:
		w.zset(v)
	default:
		panic(fmt.Sprintf("store: cannot encode %T", e.Value))
	}
}

// Entries writes a batch of keys, as Entry does for each. The keyspace is
// visited in table order, so almost every key, value and listpack is a
// cache miss (a million lock hashes are ~200 MB of heap): Entries first
// reads one word of each key and value, then of each value's payload, in
// loops whose loads do not depend on one another, so the CPU overlaps the
// misses of a whole batch instead of waiting for them one at a time; the
// encoding pass then finds the data in cache. About twice as fast as
// Entry per key for lock hashes.
func (w *Encoder) Entries(keys []string, ents []*Entry) {
	var sum uint64
	for i, k := range keys {
		if len(k) > 0 {
			sum += uint64(k[0])
		}
		switch v := ents[i].Value.(type) {
		case *String:
			sum += uint64(len(v.B))
		case *Hash:
			sum += uint64(v.n)
		case *List:
			sum += uint64(v.n)
		}
	}
	for _, e := range ents {
		switch v := e.Value.(type) {
		case *String:
			if len(v.B) > 0 {
				sum += uint64(v.B[0])
			}
		case *Hash:
			if v.n != htMark && v.n > 0 {
				sum += uint64(*(*byte)(v.p))
			}
		}
	}
	w.touched += sum
	for i, k := range keys {
		w.Entry(k, ents[i])
	}
}

func (w *Encoder) hash(h *Hash) {
	ht := h.ht()
	if ht == nil {
		w.Byte(0)
		w.Bytes(h.lp())
		return
	}
	w.Byte(1)
	w.Uvarint(uint64(ht.Len()))
	if !w.Canonical {
		ht.Range(func(k string, v *string) bool {
			w.String(k)
			w.String(*v)
			return true
		})
		return
	}
	fields := w.sortedKeys(ht.Len(), func(fn func(string)) {
		ht.Range(func(k string, _ *string) bool { fn(k); return true })
	})
	for _, f := range fields {
		w.String(f)
		w.String(*ht.Get(f))
	}
}

// sortedKeys collects the keys rng yields and sorts them (in a reused
// buffer, valid until the next call).
func (w *Encoder) sortedKeys(n int, rng func(func(string))) []string {
	s := w.scratch[:0]
	rng(func(k string) { s = append(s, k) })
	sort.Strings(s)
	w.scratch = s
	return s
}

func (w *Encoder) set(s *Set) {
	if s.ht == nil {
		w.Byte(0)
		w.Uvarint(uint64(len(s.is)))
		for _, n := range s.is {
			w.Varint(n)
		}
		return
	}
	w.Byte(1)
	w.Uvarint(uint64(s.ht.Len()))
	if !w.Canonical {
		s.ht.Range(func(k string, _ *struct{}) bool {
			w.String(k)
			return true
		})
		return
	}
	for _, m := range w.sortedKeys(s.ht.Len(), func(fn func(string)) {
		s.ht.Range(func(k string, _ *struct{}) bool { fn(k); return true })
	}) {
		w.String(m)
	}
}

func (w *Encoder) zset(z *ZSet) {
	if z.sl == nil {
		w.Byte(0)
	} else {
		w.Byte(1)
	}
	w.Uvarint(uint64(z.Len()))
	z.Range(func(m string, score float64) {
		w.String(m)
		w.float(score)
	})
}

// Decoder reads the snapshot encoding from a stream through its own
// buffer, keeping a running checksum of the bytes consumed (not of bytes
// read ahead), so the checksum that ends a stream can be checked without
// holding the stream in memory.
type Decoder struct {
	r        io.Reader
	buf      []byte
	pos, end int
	sum      hash.Hash64
	hashed   int // buf[:hashed] is in sum
	nohash   bool
	scratch  []byte
}

// NewDecoder returns a Decoder reading r, summing what it consumes into
// sum (which may be nil).
func NewDecoder(r io.Reader, sum hash.Hash64) *Decoder {
	return &Decoder{r: r, buf: make([]byte, 64<<10), sum: sum}
}

// fill reads more input once the buffer is consumed.
func (d *Decoder) fill() error {
	eof, err := d.AtEOF()
	if err == nil && eof {
		err = corrupt("truncated")
	}
	return err
}

func (d *Decoder) sumConsumed() {
	if d.sum != nil && !d.nohash && d.pos > d.hashed {
		d.sum.Write(d.buf[d.hashed:d.pos])
	}
	d.hashed = d.pos
}

// Sum returns the checksum of everything consumed so far (0 without a
// hash) and stops summing: the checksum itself follows.
func (d *Decoder) Sum() uint64 {
	d.sumConsumed()
	d.nohash = true
	if d.sum == nil {
		return 0
	}
	return d.sum.Sum64()
}

// AtEOF reports whether the stream has nothing more.
func (d *Decoder) AtEOF() (bool, error) {
	if d.pos < d.end {
		return false, nil
	}
	d.sumConsumed()
	d.pos, d.end, d.hashed = 0, 0, 0
	for range 100 { // as bufio, give up on a reader that returns nothing
		n, err := d.r.Read(d.buf)
		if n > 0 {
			d.end = n
			return false, nil
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	return false, io.ErrNoProgress
}

// Byte reads one byte.
func (d *Decoder) Byte() (byte, error) {
	if d.pos == d.end {
		if err := d.fill(); err != nil {
			return 0, err
		}
	}
	c := d.buf[d.pos]
	d.pos++
	return c, nil
}

// Full reads len(p) bytes into p.
func (d *Decoder) Full(p []byte) error {
	for len(p) > 0 {
		if d.pos == d.end {
			if err := d.fill(); err != nil {
				return err
			}
		}
		n := copy(p, d.buf[d.pos:d.end])
		d.pos += n
		p = p[n:]
	}
	return nil
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() (uint64, error) {
	var x uint64
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		c, err := d.Byte()
		if err != nil {
			return 0, err
		}
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			return x | uint64(c)<<s, nil
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return 0, corrupt("bad varint")
}

// Varint reads a zig-zag varint.
func (d *Decoder) Varint() (int64, error) {
	u, err := d.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x, err
}

// Len reads a count or length, refusing one beyond limit.
func (d *Decoder) Len(limit uint64) (int, error) {
	n, err := d.Uvarint()
	if err != nil {
		return 0, err
	}
	if n > limit {
		return 0, corrupt("length %d out of range", n)
	}
	return int(n), nil
}

// maxLen bounds any length: more than a 32-bit count of elements and
// more than any string lockkv stores.
const maxLen = 1 << 40

// Bytes reads a length-prefixed string into a new slice of exactly its
// length. A length the stream does not back fails with a truncation error
// after reading at most what the stream holds, so corrupt lengths never
// cause a huge allocation.
func (d *Decoder) Bytes() ([]byte, error) {
	n, err := d.Len(maxLen)
	if err != nil {
		return nil, err
	}
	return d.bytesN(n)
}

// view reads a length-prefixed string into a reused buffer, valid until
// the next read.
func (d *Decoder) view() ([]byte, error) {
	n, err := d.Len(maxLen)
	if err != nil {
		return nil, err
	}
	if n > readStep {
		return d.bytesN(n)
	}
	if cap(d.scratch) < n {
		d.scratch = make([]byte, n)
	}
	b := d.scratch[:n]
	return b, d.Full(b)
}

// readStep is the largest string read into one allocation of its stated
// length; longer ones grow as the stream backs them.
const readStep = 1 << 20

func (d *Decoder) bytesN(n int) ([]byte, error) {
	if n <= readStep {
		b := make([]byte, n)
		return b, d.Full(b)
	}
	var b []byte
	for len(b) < n {
		k := min(n-len(b), max(readStep, len(b)))
		b = append(b, make([]byte, k)...)
		if err := d.Full(b[len(b)-k:]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// String reads a length-prefixed string.
func (d *Decoder) String() (string, error) {
	b, err := d.view()
	return string(b), err
}

func (d *Decoder) float() (float64, error) {
	var b [8]byte
	err := d.Full(b[:])
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), err
}

// prealloc bounds a capacity taken from a count in the stream.
func prealloc(n int) int { return min(n, 1024) }

// Entry reads one key written by Encoder.Entry.
func (d *Decoder) Entry() (key string, v Value, expire int64, err error) {
	t, err := d.Byte()
	if err != nil {
		return
	}
	if key, err = d.String(); err != nil {
		return
	}
	if expire, err = d.Varint(); err != nil {
		return
	}
	if expire < 0 {
		err = corrupt("negative deadline")
		return
	}
	switch Type(t) {
	case TypeString:
		v, err = d.str()
	case TypeHash:
		v, err = d.hash()
	case TypeList:
		v, err = d.list()
	case TypeSet:
		v, err = d.set()
	case TypeZSet:
		v, err = d.zset()
	default:
		err = corrupt("unknown type %d", t)
	}
	return
}

func (d *Decoder) str() (Value, error) {
	flags, err := d.Byte()
	if err != nil {
		return nil, err
	}
	if flags&^3 != 0 {
		return nil, corrupt("bad string flags %d", flags)
	}
	b, err := d.view()
	if err != nil {
		return nil, err
	}
	s := NewString(b)
	s.Raw, s.NotInt = flags&1 != 0, flags&2 != 0
	return s, nil
}

func (d *Decoder) encoding() (bool, error) {
	enc, err := d.Byte()
	if err != nil {
		return false, err
	}
	if enc > 1 {
		return false, corrupt("bad encoding %d", enc)
	}
	return enc == 1, nil
}

func (d *Decoder) hash() (Value, error) {
	table, err := d.encoding()
	if err != nil {
		return nil, err
	}
	h := &Hash{}
	if !table {
		lp, err := d.Bytes()
		if err != nil {
			return nil, err
		}
		if err := checkListpack(lp); err != nil {
			return nil, err
		}
		h.setLP(lp)
		return h, nil
	}
	n, err := d.Len(math.MaxUint32)
	if err != nil {
		return nil, err
	}
	ht := dict.New[string]()
	for i := 0; i < n; i++ {
		f, err := d.String()
		if err != nil {
			return nil, err
		}
		v, err := d.String()
		if err != nil {
			return nil, err
		}
		if !ht.Set(f, v) {
			return nil, corrupt("duplicate hash field")
		}
	}
	h.setHT(ht)
	return h, nil
}

// checkListpack checks that lp is a sequence of well-formed pairs with
// distinct fields, so no later read can run past it.
func checkListpack(lp []byte) error {
	if len(lp) >= maxListpack {
		return corrupt("listpack too large")
	}
	next := func(off int) (string, int, bool) {
		n, k := binary.Uvarint(lp[off:])
		if k <= 0 || n > uint64(len(lp)-off-k) {
			return "", 0, false
		}
		end := off + k + int(n)
		return b2s(lp[off+k : end]), end, true
	}
	var seen distinct
	for off := 0; off < len(lp); {
		f, voff, ok := next(off)
		if !ok {
			return corrupt("bad listpack")
		}
		if _, off, ok = next(voff); !ok {
			return corrupt("bad listpack")
		}
		if !seen.add(f) {
			return corrupt("duplicate hash field")
		}
	}
	return nil
}

// distinct checks that strings are distinct: by comparison while they are
// few (a lock hash has one field), then with a map.
type distinct struct {
	few  [16]string
	nfew int
	m    map[string]struct{}
}

func (s *distinct) add(k string) bool {
	if s.m == nil {
		for _, f := range s.few[:s.nfew] {
			if f == k {
				return false
			}
		}
		if s.nfew < len(s.few) {
			s.few[s.nfew] = k
			s.nfew++
			return true
		}
		s.m = make(map[string]struct{}, 2*len(s.few))
		for _, f := range s.few {
			s.m[f] = struct{}{}
		}
	}
	if _, dup := s.m[k]; dup {
		return false
	}
	s.m[k] = struct{}{}
	return true
}

func (d *Decoder) list() (Value, error) {
	n, err := d.Len(maxLen)
	if err != nil {
		return nil, err
	}
	l := &List{}
	for i := 0; i < n; i++ {
		b, err := d.Bytes()
		if err != nil {
			return nil, err
		}
		l.PushBack(b)
	}
	return l, nil
}

func (d *Decoder) set() (Value, error) {
	table, err := d.encoding()
	if err != nil {
		return nil, err
	}
	n, err := d.Len(maxLen)
	if err != nil {
		return nil, err
	}
	if !table {
		is := make([]int64, 0, prealloc(n))
		for i := 0; i < n; i++ {
			x, err := d.Varint()
			if err != nil {
				return nil, err
			}
			if i > 0 && x <= is[i-1] {
				return nil, corrupt("intset out of order")
			}
			is = append(is, x)
		}
		if len(is) == 0 {
			is = nil
		}
		return &Set{is: is}, nil
	}
	ht := dict.New[struct{}]()
	for i := 0; i < n; i++ {
		m, err := d.String()
		if err != nil {
			return nil, err
		}
		if !ht.Set(m, struct{}{}) {
			return nil, corrupt("duplicate set member")
		}
	}
	return &Set{ht: ht}, nil
}

func (d *Decoder) zset() (Value, error) {
	skiplist, err := d.encoding()
	if err != nil {
		return nil, err
	}
	n, err := d.Len(maxLen)
	if err != nil {
		return nil, err
	}
	z := NewZSet(skiplist)
	var seen distinct
	if !skiplist {
		z.lp = make([]zlpEntry, 0, prealloc(n))
	}
	for i := 0; i < n; i++ {
		m, err := d.String()
		if err != nil {
			return nil, err
		}
		score, err := d.float()
		if err != nil {
			return nil, err
		}
		if score != score {
			return nil, corrupt("NaN score")
		}
		if skiplist {
			if z.sl.dict.Get(m) != nil {
				return nil, corrupt("duplicate zset member")
			}
			z.sl.dict.Set(m, z.sl.insert(score, m))
			continue
		}
		if !seen.add(m) {
			return nil, corrupt("duplicate zset member")
		}
		if k := len(z.lp); k > 0 && !zless(z.lp[k-1].score, z.lp[k-1].member, score, m) {
			return nil, corrupt("zset out of order")
		}
		z.lp = append(z.lp, zlpEntry{member: m, score: score})
	}
	return z, nil
}
