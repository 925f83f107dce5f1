package conformance

import (
	"math/rand"
	"strconv"
	"testing"
	"time"
)

// TestPubSubRandomStream drives three subscribers (two RESP2, one RESP3)
// and a publisher with a random stream of subscription commands and
// publishes (fixed seed), comparing every confirmation and message. The
// channels and patterns are chosen so that no channel matches two
// patterns (Redis delivers those in hash-table order), and mass
// unsubscribes name their channels (Redis goes through a client's channels
// in hash-table order); PUNSUBSCRIBE without arguments is deterministic (a
// list in Redis 7.0) and is used.
func TestPubSubRandomStream(t *testing.T) {
	pub := NewPair(t)
	channels := []string{"a1", "a2", "b1", "b2", "c1", "c2"}
	patterns := []string{"a*", "b?", "zz*"}
	matches := func(pat, ch string) bool {
		switch pat {
		case "a*":
			return ch[0] == 'a'
		case "b?":
			return ch[0] == 'b' && len(ch) == 2
		}
		return false
	}
	type subscriber struct {
		p        *Pair
		channels map[string]bool
		patterns []string
	}
	subs := make([]*subscriber, 3)
	for i := range subs {
		subs[i] = &subscriber{p: Connect(t), channels: map[string]bool{}}
	}
	subs[2].p.Do("HELLO", "3")
	r := rand.New(rand.NewSource(7))
	pick := func(from []string) []string {
		n := 1 + r.Intn(3)
		out := make([]string, n)
		for i := range out {
			out[i] = from[r.Intn(len(from))]
		}
		return out
	}
	hasPattern := func(s *subscriber, p string) bool {
		for _, x := range s.patterns {
			if x == p {
				return true
			}
		}
		return false
	}
	for step := 0; step < 400; step++ {
		s := subs[r.Intn(len(subs))]
		switch op := r.Intn(10); {
		case op < 2:
			chs := pick(channels)
			s.p.Send(append([]string{"SUBSCRIBE"}, chs...)...)
			s.p.receiveN(len(chs))
			for _, c := range chs {
				s.channels[c] = true
			}
		case op < 3:
			chs := pick(channels)
			s.p.Send(append([]string{"UNSUBSCRIBE"}, chs...)...)
			s.p.receiveN(len(chs))
			for _, c := range chs {
				delete(s.channels, c)
			}
		case op < 4:
			ps := pick(patterns)
			s.p.Send(append([]string{"PSUBSCRIBE"}, ps...)...)
			s.p.receiveN(len(ps))
			for _, p := range ps {
				if !hasPattern(s, p) {
					s.patterns = append(s.patterns, p)
				}
			}
		case op < 5:
			if r.Intn(3) == 0 {
				s.p.Send("PUNSUBSCRIBE")
				n := len(s.patterns)
				if n == 0 {
					n = 1
				}
				s.p.receiveN(n)
				s.patterns = nil
				break
			}
			ps := pick(patterns)
			s.p.Send(append([]string{"PUNSUBSCRIBE"}, ps...)...)
			s.p.receiveN(len(ps))
			for _, p := range ps {
				for i, x := range s.patterns {
					if x == p {
						s.patterns = append(s.patterns[:i], s.patterns[i+1:]...)
						break
					}
				}
			}
		case op < 9:
			ch := channels[r.Intn(len(channels))]
			pub.Do("PUBLISH", ch, "m"+strconv.Itoa(step))
			for _, x := range subs {
				n := 0
				if x.channels[ch] {
					n++
				}
				for _, p := range x.patterns {
					if matches(p, ch) {
						n++
					}
				}
				x.p.receiveN(n)
			}
		default:
			pub.Do("PUBSUB", "NUMSUB", "a1", "b2", "c1")
			pub.Do("PUBSUB", "NUMPAT")
			pub.DoSorted("PUBSUB", "CHANNELS")
			pub.DoSorted("PUBSUB", "CHANNELS", "a*")
		}
	}
	for _, x := range subs {
		x.p.NoReply(20 * time.Millisecond)
	}
}
