package conformance

import (
	"strings"
	"testing"
	"time"
)

// TestOrderAcrossConnections replays what go-redis does when a test
// subscribes on one connection and publishes at once on another (its
// "handles big message payload" case): a new connection says HELLO and
// reads the reply, sends SUBSCRIBE without waiting, and an idle connection
// publishes 1 KB to the channel. The SUBSCRIBE reached the server first,
// so the PUBLISH must count the subscriber, as Redis's event loop
// guarantees. lockkv runs what arrived first first across connections
// (DESIGN.md, "Order across connections"); before it waited for readers
// with earlier input it lost the message in 24-64 of 300 tries, and with
// no ordering at all in about half. A few losses are allowed where
// Redis has none: lockkv stops waiting for a reader the kernel did not run
// within 1 ms, which a loaded CI machine can cause.
func TestOrderAcrossConnections(t *testing.T) {
	const tries, allowed = 300, 3
	p := NewPair(t)
	payload := strings.Repeat("x", 1024)
	lost := func(addr string, pub *Conn) int {
		n := 0
		for i := 0; i < tries; i++ {
			sub, err := Dial(addr)
			if err != nil {
				t.Fatalf("dial %s: %v", addr, err)
			}
			if v, err := sub.Do("HELLO", "3"); err != nil || v.Kind != '%' {
				sub.Close()
				t.Fatalf("%s HELLO 3: %v %v", addr, v, err)
			}
			if err := sub.Send("SUBSCRIBE", "order-ch"); err != nil {
				sub.Close()
				t.Fatalf("%s SUBSCRIBE: %v", addr, err)
			}
			v, err := pub.Do("PUBLISH", "order-ch", payload)
			if err != nil || v.Kind != ':' {
				sub.Close()
				t.Fatalf("%s PUBLISH: %v %v", addr, v, err)
			}
			if v.Str == "0" {
				n++
			} else if m, err := sub.Read(5 * time.Second); err != nil || m.Kind != '>' {
				// The subscribe confirmation comes first; the message
				// after it.
				t.Fatalf("%s: subscribe confirmation: %v %v", addr, m, err)
			} else if m, err := sub.Read(5 * time.Second); err != nil || len(m.Elems) != 3 || m.Elems[2].Str != payload {
				t.Fatalf("%s: the message the PUBLISH counted: %v %v", addr, m, err)
			}
			sub.Close()
		}
		return n
	}
	redisLost := lost(RedisAddr(), p.R)
	lockkvLost := lost(LockkvAddr(), p.L)
	t.Logf("messages lost in %d tries: redis-server %d, lockkv %d", tries, redisLost, lockkvLost)
	if redisLost > allowed {
		t.Fatalf("redis-server lost %d of %d: this machine cannot show the order", redisLost, tries)
	}
	if lockkvLost > redisLost+allowed {
		t.Fatalf("lockkv lost %d of %d messages (redis-server %d): a PUBLISH ran before a SUBSCRIBE that reached the server first", lockkvLost, tries, redisLost)
	}
}
