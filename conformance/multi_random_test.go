package conformance

import (
	"math/rand"
	"strconv"
	"testing"
)

// TestMultiRandomStream runs a random stream (fixed seed) of WATCH, MULTI,
// queued commands (some refused at queue time), EXEC, DISCARD, UNWATCH on
// two clients that also write the watched keys, SELECT, FLUSHDB, FLUSHALL
// and SWAPDB, comparing every reply.
func TestMultiRandomStream(t *testing.T) {
	a := NewPair(t)
	b := Connect(t)
	keys := []string{"k1", "k2", "k3", "h"}
	r := rand.New(rand.NewSource(11))
	key := func() string { return keys[r.Intn(len(keys))] }
	writes := func() []string {
		switch r.Intn(7) {
		case 0:
			return []string{"SET", key(), strconv.Itoa(r.Intn(10))}
		case 1:
			return []string{"INCR", key()}
		case 2:
			return []string{"DEL", key(), key()}
		case 3:
			return []string{"HSET", key(), "f", "v"}
		case 4:
			return []string{"EXPIRE", key(), "1000"}
		case 5:
			return []string{"SETNX", key(), "x"}
		}
		return []string{"GET", key()}
	}
	for step := 0; step < 600; step++ {
		c := a
		if r.Intn(3) == 0 {
			c = b
		}
		switch op := r.Intn(16); {
		case op < 3:
			c.Do(append([]string{"WATCH"}, key(), key())...)
		case op < 5:
			c.Do("MULTI")
		case op < 9:
			c.Do(writes()...)
		case op < 10:
			if r.Intn(4) == 0 {
				c.Do("SET", key()) // arity: refused, aborts a transaction
			} else {
				c.Do("NOSUCH", key())
			}
		case op < 12:
			c.Do("EXEC")
		case op < 13:
			c.Do("DISCARD")
		case op < 14:
			c.Do("UNWATCH")
		case op < 15:
			c.Do("SELECT", strconv.Itoa(r.Intn(2)))
		default:
			switch r.Intn(3) {
			case 0:
				c.Do("FLUSHDB")
			case 1:
				c.Do("SWAPDB", "0", "1")
			default:
				c.Do("FLUSHALL")
			}
		}
	}
	a.Do("SELECT", "0")
	a.Do("FLUSHALL")
}
