package store

import "github.com/lockkv/lockkv/internal/redisnum"

// List is a list value: a deque of byte strings in a ring buffer, so
// pushes and pops at both ends are O(1) amortised and indexing is O(1).
// Inserting or removing in the middle moves the shorter side.
//
// The list owns the slices it is given: callers pass copies (never request
// arguments) and must not modify returned elements in place.
type List struct {
	buf  [][]byte // len(buf) is zero or a power of two
	head int      // index in buf of element 0
	n    int
}

// NewList returns an empty list.
func NewList() *List { return &List{} }

// Type implements Value.
func (l *List) Type() Type { return TypeList }

// Encoding implements Value. Redis 7.0 reports every list as "quicklist"
// (the listpack encoding for small lists arrived in 7.2).
func (l *List) Encoding() string { return "quicklist" }

// Len returns the number of elements.
func (l *List) Len() int { return l.n }

func (l *List) slot(i int) int { return (l.head + i) & (len(l.buf) - 1) }

// grow makes room for at least one more element.
func (l *List) grow() {
	if l.n < len(l.buf) {
		return
	}
	size := 2 * len(l.buf)
	if size == 0 {
		size = 4
	}
	l.resize(size)
}

func (l *List) resize(size int) {
	nb := make([][]byte, size)
	if l.n > 0 {
		if l.head+l.n <= len(l.buf) {
			copy(nb, l.buf[l.head:l.head+l.n])
		} else {
			k := copy(nb, l.buf[l.head:])
			copy(nb[k:], l.buf[:l.n-k])
		}
	}
	l.buf = nb
	l.head = 0
}

// shrink releases memory once the list uses a quarter of its buffer.
func (l *List) shrink() {
	if len(l.buf) > 64 && l.n < len(l.buf)/4 {
		l.resize(len(l.buf) / 2)
	}
}

// PushFront adds b at the head.
func (l *List) PushFront(b []byte) {
	l.grow()
	l.head = (l.head - 1) & (len(l.buf) - 1)
	l.buf[l.head] = b
	l.n++
}

// PushBack adds b at the tail.
func (l *List) PushBack(b []byte) {
	l.grow()
	l.buf[l.slot(l.n)] = b
	l.n++
}

// PopFront removes and returns the head element, or nil if empty.
func (l *List) PopFront() []byte {
	if l.n == 0 {
		return nil
	}
	b := l.buf[l.head]
	l.buf[l.head] = nil
	l.head = (l.head + 1) & (len(l.buf) - 1)
	l.n--
	l.shrink()
	return b
}

// PopBack removes and returns the tail element, or nil if empty.
func (l *List) PopBack() []byte {
	if l.n == 0 {
		return nil
	}
	i := l.slot(l.n - 1)
	b := l.buf[i]
	l.buf[i] = nil
	l.n--
	l.shrink()
	return b
}

// Index returns element i (0 <= i < Len()).
func (l *List) Index(i int) []byte { return l.buf[l.slot(i)] }

// Set replaces element i (0 <= i < Len()).
func (l *List) Set(i int, b []byte) { l.buf[l.slot(i)] = b }

// Insert puts b at position i (0 <= i <= Len()), shifting later elements
// towards the tail (or earlier ones towards the head, whichever is fewer).
func (l *List) Insert(i int, b []byte) {
	if i == 0 {
		l.PushFront(b)
		return
	}
	if i == l.n {
		l.PushBack(b)
		return
	}
	l.grow()
	if i < l.n/2 {
		l.head = (l.head - 1) & (len(l.buf) - 1)
		for j := 0; j < i; j++ {
			l.buf[l.slot(j)] = l.buf[l.slot(j+1)]
		}
	} else {
		for j := l.n; j > i; j-- {
			l.buf[l.slot(j)] = l.buf[l.slot(j-1)]
		}
	}
	l.buf[l.slot(i)] = b
	l.n++
}

// RemoveAt removes element i (0 <= i < Len()).
func (l *List) RemoveAt(i int) {
	if i < l.n/2 {
		for j := i; j > 0; j-- {
			l.buf[l.slot(j)] = l.buf[l.slot(j-1)]
		}
		l.buf[l.head] = nil
		l.head = (l.head + 1) & (len(l.buf) - 1)
	} else {
		for j := i; j < l.n-1; j++ {
			l.buf[l.slot(j)] = l.buf[l.slot(j+1)]
		}
		l.buf[l.slot(l.n-1)] = nil
	}
	l.n--
	l.shrink()
}

// Trim keeps elements [start, start+count) and drops the rest
// (0 <= start, start+count <= Len()).
func (l *List) Trim(start, count int) {
	for j := 0; j < start; j++ {
		l.buf[l.slot(j)] = nil
	}
	for j := start + count; j < l.n; j++ {
		l.buf[l.slot(j)] = nil
	}
	if count == 0 {
		l.buf, l.head, l.n = nil, 0, 0
		return
	}
	l.head = l.slot(start)
	l.n = count
	for len(l.buf) > 64 && l.n < len(l.buf)/4 {
		l.resize(len(l.buf) / 2)
	}
}

// Remove deletes up to count elements equal to v, scanning from the head
// (count > 0), from the tail (count < 0), or all of them (count == 0), and
// returns how many it removed. It runs in one pass.
func (l *List) Remove(v []byte, count int64) int64 {
	var removed int64
	limit := count
	if limit < 0 {
		limit = -limit
		if limit < 0 { // math.MinInt64: no limit, as in Redis
			limit = 0
		}
	}
	if count >= 0 {
		w := 0
		for r := 0; r < l.n; r++ {
			e := l.buf[l.slot(r)]
			if (limit == 0 || removed < limit) && string(e) == string(v) {
				removed++
				continue
			}
			if w != r {
				l.buf[l.slot(w)] = e
			}
			w++
		}
		for j := w; j < l.n; j++ {
			l.buf[l.slot(j)] = nil
		}
		l.n = w
	} else {
		w := l.n - 1
		for r := l.n - 1; r >= 0; r-- {
			e := l.buf[l.slot(r)]
			if (limit == 0 || removed < limit) && string(e) == string(v) {
				removed++
				continue
			}
			if w != r {
				l.buf[l.slot(w)] = e
			}
			w--
		}
		for j := 0; j <= w; j++ {
			l.buf[l.slot(j)] = nil
		}
		drop := w + 1
		if l.n-drop > 0 {
			l.head = l.slot(drop)
		} else {
			l.head = 0
		}
		l.n -= drop
	}
	if l.n == 0 {
		l.buf, l.head = nil, 0
	} else {
		for len(l.buf) > 64 && l.n < len(l.buf)/4 {
			l.resize(len(l.buf) / 2)
		}
	}
	return removed
}

// Find returns the index of the first element equal to v, or -1.
func (l *List) Find(v []byte) int {
	for i := 0; i < l.n; i++ {
		if string(l.buf[l.slot(i)]) == string(v) {
			return i
		}
	}
	return -1
}

// Range calls fn for elements start..stop (inclusive, 0 <= start <= stop <
// Len()), forwards, or backwards from stop to start when reverse is set.
func (l *List) Range(start, stop int, reverse bool, fn func(b []byte)) {
	if reverse {
		for i := stop; i >= start; i-- {
			fn(l.buf[l.slot(i)])
		}
		return
	}
	for i := start; i <= stop; i++ {
		fn(l.buf[l.slot(i)])
	}
}

// Clone returns a deep copy.
func (l *List) Clone() Value {
	c := &List{}
	if l.n == 0 {
		return c
	}
	size := 4
	for size < l.n {
		size *= 2
	}
	c.buf = make([][]byte, size)
	c.n = l.n
	for i := 0; i < l.n; i++ {
		c.buf[i] = append([]byte(nil), l.buf[l.slot(i)]...)
	}
	return c
}

// MemoryUsage estimates the bytes Redis 7.0 uses for the list as a
// quicklist: the quicklist header, one node per 8 KB listpack
// (list-max-listpack-size -2), and each entry's listpack encoding.
func (l *List) MemoryUsage() int64 {
	const nodeLimit = 8192
	total := int64(48) // quicklist
	node := int64(0)
	for i := 0; i < l.n; i++ {
		sz := listpackEntrySize(l.buf[l.slot(i)])
		if node == 0 || node+sz > nodeLimit {
			if node > 0 {
				total += node + 1
			}
			total += 32 // quicklistNode
			node = 6    // listpack header
		}
		node += sz
	}
	if node > 0 {
		total += node + 1
	}
	return total
}

// listpackEntrySize is the size of b as a listpack entry: integers in
// their compact encodings, strings with their length header, plus the
// back-length.
func listpackEntrySize(b []byte) int64 {
	var enc int64
	if v, ok := redisnum.ParseInt(b); ok { // lpStringToInt64
		switch {
		case v >= 0 && v <= 127:
			enc = 1
		case v >= -4096 && v < 4096:
			enc = 2
		case v >= -32768 && v < 32768:
			enc = 3
		case v >= -8388608 && v < 8388608:
			enc = 4
		case v >= -2147483648 && v < 2147483648:
			enc = 5
		default:
			enc = 9
		}
	} else {
		n := int64(len(b))
		switch {
		case n < 64:
			enc = 1 + n
		case n < 4096:
			enc = 2 + n
		default:
			enc = 5 + n
		}
	}
	switch {
	case enc < 128:
		return enc + 1
	case enc < 16384:
		return enc + 2
	case enc < 2097152:
		return enc + 3
	case enc < 268435456:
		return enc + 4
	}
	return enc + 5
}
