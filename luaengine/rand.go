package luaengine

// rand48 is the generator behind math.random in Redis scripts
// (redisLrand48/redisSrand48 in Redis's rand.c): a 48-bit linear
// congruential generator with the drand48 constants. Its state belongs to
// the engine and is never reseeded between calls, as in Redis 7.0, so a
// replica that runs the same scripts in the same order draws the same
// numbers.
type rand48 struct{ x uint64 }

const (
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
	rand48Mask = 1<<48 - 1
	// lrand48Max is REDIS_LRAND48_MAX (INT32_MAX).
	lrand48Max = 1<<31 - 1
)

func newRand48() rand48 { return rand48{x: 0x1234<<32 | 0xABCD<<16 | 0x330E} }

// seed is redisSrand48: the high 32 bits come from the seed, the low 16
// bits are 0x330E.
func (r *rand48) seed(s int32) {
	v := uint32(s)
	r.x = uint64(v>>16)<<32 | uint64(v&0xFFFF)<<16 | 0x330E
}

// next is redisLrand48: a non-negative 31-bit number.
func (r *rand48) next() int32 {
	r.x = (rand48A*r.x + rand48C) & rand48Mask
	return int32(r.x >> 17)
}
