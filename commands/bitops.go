package commands

import (
	"math/bits"

	"github.com/lockkv/lockkv/store"
)

// Bitmap commands on strings: Redis's bitops.c.

var bitCommands = []*Spec{
	{Name: "getbit", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "bitmap", "fast"}, Fn: getbit},
	{Name: "setbit", Arity: 4, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"write", "bitmap", "slow"}, Fn: setbit},
	{Name: "bitcount", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "bitmap", "slow"}, Fn: bitcount},
	{Name: "bitpos", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "bitmap", "slow"}, Fn: bitpos},
	{Name: "bitop", Arity: -4, Flags: Write | DenyOOM, FirstKey: 2, LastKey: -1, Step: 1, ACL: []string{"write", "bitmap", "slow"}, Fn: bitop},
}

func init() { Register(bitCommands) }

// ---- bitmap helpers ----

// bitOffset parses a bit offset as getBitOffsetFromArgument: a
// non-negative integer whose byte is below proto-max-bulk-len.
func (c *Ctx) bitOffset(b []byte) (uint64, bool) {
	n, ok := ParseInt(b)
	if !ok || n < 0 || n>>3 >= c.E.Config.ProtoMaxBulkLen {
		c.Error(ErrBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// bitAt returns bit i (0 = most significant bit of the first byte) of p.
func bitAt(p []byte, i int64) byte { return (p[i>>3] >> (7 - uint(i&7))) & 1 }

// bitRange normalizes a BITCOUNT/BITPOS range as Redis does (negative
// indexes from the end, clamped) over a string of strlen bytes, in bytes
// or bits, and returns it as a bit range [lo, hi]; empty when lo > hi.
func bitRange(start, end, strlen int64, isBit bool) (lo, hi int64) {
	total := strlen
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 1, 0
	}
	if isBit {
		return start, end
	}
	return start << 3, end<<3 | 7
}

// popcount counts the set bits of p in the bit range [lo, hi].
func popcount(p []byte, lo, hi int64) int64 {
	n := int64(0)
	for lo <= hi && lo&7 != 0 {
		n += int64(bitAt(p, lo))
		lo++
	}
	for hi >= lo && hi&7 != 7 {
		n += int64(bitAt(p, hi))
		hi--
	}
	if lo > hi {
		return n
	}
	b := p[lo>>3 : hi>>3+1]
	for len(b) >= 8 {
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		n += int64(bits.OnesCount64(x))
		b = b[8:]
	}
	for _, x := range b {
		n += int64(bits.OnesCount8(x))
	}
	return n
}

// findBit returns the position of the first bit equal to bit in [lo, hi],
// or -1.
func findBit(p []byte, lo, hi int64, bit byte) int64 {
	skip := byte(0) // a byte with no bit of interest
	if bit == 0 {
		skip = 0xff
	}
	for i := lo; i <= hi; {
		if i&7 == 0 && i+7 <= hi && p[i>>3] == skip {
			i += 8
			continue
		}
		if bitAt(p, i) == bit {
			return i
		}
		i++
	}
	return -1
}

// ---- handlers ----

func getbit(c *Ctx, args [][]byte) {
	off, ok := c.bitOffset(args[2])
	if !ok {
		return
	}
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil || off>>3 >= uint64(len(s.B)) {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(bitAt(s.B, int64(off))))
}

func setbit(c *Ctx, args [][]byte) {
	off, ok := c.bitOffset(args[2])
	if !ok {
		return
	}
	on, ok := ParseInt(args[3])
	if !ok || on&^1 != 0 {
		c.Error(ErrBitValue)
		return
	}
	key := args[1]
	byteIdx := int64(off >> 3)
	e := c.LookupWrite(key)
	var s *store.String
	dirty := false
	if e == nil {
		s = &store.String{B: make([]byte, byteIdx+1), Raw: true}
		c.setKey(key, s, false, false)
		dirty = true
	} else {
		if s, ok = e.Value.(*store.String); !ok {
			c.WrongType()
			return
		}
		s.Raw = true
		if int64(len(s.B)) < byteIdx+1 {
			s.B = growZero(s.B, byteIdx+1)
			dirty = true
		}
		e.Access = c.Now
	}
	shift := 7 - uint(off&7)
	old := (s.B[byteIdx] >> shift) & 1
	if dirty || int64(old) != on {
		s.B[byteIdx] = s.B[byteIdx]&^(1<<shift) | byte(on)<<shift
		if e != nil {
			c.Modified(key)
		}
		c.Notify(NotifyString, "setbit", key)
	}
	c.W.Int(int64(old))
}

// growZero extends b with zero bytes to length n.
func growZero(b []byte, n int64) []byte {
	if int64(cap(b)) >= n {
		old := len(b)
		b = b[:n]
		clear(b[old:])
		return b
	}
	nb := make([]byte, n, n+n/4)
	copy(nb, b)
	return nb
}

func bitcount(c *Ctx, args [][]byte) {
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	strlen := int64(len(s.B))
	var lo, hi int64
	switch len(args) {
	case 2:
		lo, hi = 0, strlen<<3-1
	case 4, 5:
		start, ok := ParseInt(args[2])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		end, ok := ParseInt(args[3])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		isBit := false
		if len(args) == 5 {
			u := cString(args[4])
			switch {
			case EqualFold(u, "bit"):
				isBit = true
			case EqualFold(u, "byte"):
			default:
				c.Error(ErrSyntax)
				return
			}
		}
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return
		}
		lo, hi = bitRange(start, end, strlen, isBit)
	default:
		c.Error(ErrSyntax)
		return
	}
	if lo > hi {
		c.W.Int(0)
		return
	}
	c.W.Int(popcount(s.B, lo, hi))
}

func bitpos(c *Ctx, args [][]byte) {
	b, ok := ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if b != 0 && b != 1 {
		c.Error(ErrBitArg)
		return
	}
	bit := byte(b)
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil {
		if bit == 1 {
			c.W.Int(-1)
		} else {
			c.W.Int(0)
		}
		return
	}
	strlen := int64(len(s.B))
	var lo, hi int64
	endGiven := false
	switch len(args) {
	case 3:
		lo, hi = 0, strlen<<3-1
	case 4, 5, 6:
		start, ok := ParseInt(args[3])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		isBit := false
		if len(args) == 6 {
			u := cString(args[5])
			switch {
			case EqualFold(u, "bit"):
				isBit = true
			case EqualFold(u, "byte"):
			default:
				c.Error(ErrSyntax)
				return
			}
		}
		var end int64
		if len(args) >= 5 {
			if end, ok = ParseInt(args[4]); !ok {
				c.Error(ErrNotInt)
				return
			}
			endGiven = true
		} else if isBit {
			end = strlen<<3 + 7
		} else {
			end = strlen - 1
		}
		lo, hi = bitRange(start, end, strlen, isBit)
	default:
		c.Error(ErrSyntax)
		return
	}
	if lo > hi {
		c.W.Int(-1)
		return
	}
	pos := findBit(s.B, lo, hi, bit)
	if pos < 0 && bit == 0 && !endGiven {
		// Without an explicit end the string is zero-padded on the right.
		pos = hi + 1
	}
	c.W.Int(pos)
}

func bitop(c *Ctx, args [][]byte) {
	op := cString(args[1])
	const (
		opAnd = iota
		opOr
		opXor
		opNot
	)
	var kind int
	switch {
	case EqualFold(op, "and"):
		kind = opAnd
	case EqualFold(op, "or"):
		kind = opOr
	case EqualFold(op, "xor"):
		kind = opXor
	case EqualFold(op, "not"):
		kind = opNot
	default:
		c.Error(ErrSyntax)
		return
	}
	if kind == opNot && len(args) != 4 {
		c.Error(ErrBitopNot)
		return
	}
	srcs := make([][]byte, len(args)-3)
	maxlen := 0
	for i, k := range args[3:] {
		s, ok := c.lookupString(k)
		if !ok {
			return
		}
		if s != nil {
			srcs[i] = s.B
			maxlen = max(maxlen, len(s.B))
		}
	}
	dst := args[2]
	if maxlen == 0 {
		if c.DB.Delete(string(dst)) {
			c.Modified(dst)
			c.Notify(NotifyGeneric, "del", dst)
		}
		c.W.Int(0)
		return
	}
	res := make([]byte, maxlen)
	at := func(src []byte, j int) byte {
		if j < len(src) {
			return src[j]
		}
		return 0
	}
	for j := range res {
		x := at(srcs[0], j)
		if kind == opNot {
			res[j] = ^x
			continue
		}
		for _, src := range srcs[1:] {
			y := at(src, j)
			switch kind {
			case opAnd:
				x &= y
			case opOr:
				x |= y
			case opXor:
				x ^= y
			}
		}
		res[j] = x
	}
	found := c.LookupWrite(dst) != nil
	c.setKey(dst, &store.String{B: res, Raw: true}, found, false)
	c.Notify(NotifyString, "set", dst)
	c.W.Int(int64(maxlen))
}
