// Package stablehash is the hash replicated servers order "random"
// choices by. A node that applies a log entry picks the element with the
// smallest Hash under a seed the entry carries, so the choice depends on
// the elements alone, never on a hash table's layout or a set's encoding,
// and every node picks the same one.
package stablehash

// Hash is the FNV-1a hash (64 bits) of key's 8 bytes, least significant
// first, followed by m, finished by splitmix64's mixer: FNV-1a alone moves
// little when members differ only in their last bytes ("m1", "m2"), so the
// smallest of its values favoured some members several times over; mixed,
// every input bit flips each output bit with probability about 1/2, and
// under a random key each member is equally likely to be the smallest.
// Its values are part of what a cluster replicates:
// changing it changes which element SPOP, SRANDMEMBER, RANDOMKEY and
// SCAN's order choose on nodes that apply the same log, so it must not
// change while nodes of two versions can share a log.
func Hash(key uint64, m []byte) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < 8; i++ {
		h ^= uint64(byte(key >> (8 * i)))
		h *= prime
	}
	for _, b := range m {
		h ^= uint64(b)
		h *= prime
	}
	return mix(h)
}

// mix is splitmix64's finalizer.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
