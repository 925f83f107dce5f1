package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lockscripts"
)

// Lock-family scenarios. The scripts are lockkv's own, written after the
// data layout and protocol Redisson documents: a lock is a hash
// {"uuid:threadId": holdCount} with a millisecond lease, waiters learn the
// remaining lease from PTTL, and a release publishes on
// redisson_lock__channel:{name}. The scripts live in lockscripts, shared
// with the cluster tests. Every reply and the final keyspace must be the
// same on lockkv and Redis; lease times are compared within the time the
// commands took (DoLease), as both servers run on the wall clock.

// lockPair is a Pair driving scripts by SHA, as lock clients do.
type lockPair struct {
	*Pair
	sha map[string]string
}

func newLockPair(t *testing.T) *lockPair {
	p := &lockPair{Pair: NewPair(t), sha: map[string]string{}}
	return p
}

// run runs a script with EVALSHA, falling back to EVAL on NOSCRIPT the way
// Redisson and go-redis do, and compares the replies.
func (p *lockPair) run(script string, keys []string, args ...string) Value {
	p.t.Helper()
	sha, ok := p.sha[script]
	if !ok {
		v := p.Do("SCRIPT", "LOAD", script)
		sha = v.Str
		p.sha[script] = sha
	}
	cmd := append([]string{"EVALSHA", sha, itoa(len(keys))}, keys...)
	cmd = append(cmd, args...)
	if leaseReplies[script] {
		return p.DoLease(cmd...)
	}
	return p.Do(cmd...)
}

// leaseReplies are the scripts whose reply may carry a lock's remaining
// lease (PTTL), compared with DoLease; the others' replies are exact.
var leaseReplies = map[string]bool{
	lockscripts.Acquire: true, lockscripts.RWReadAcquire: true, lockscripts.RWWriteAcquire: true,
	lockscripts.SpinAcquire: true, lockscripts.FencedAcquire: true,
}

// waitGone polls until key has expired on both servers.
func (p *lockPair) waitGone(key string) {
	p.t.Helper()
	testutil.Eventually(p.t, 5*time.Second, func() error {
		l, _ := p.L.Do("EXISTS", key)
		r, _ := p.R.Do("EXISTS", key)
		if l.Str != "0" || r.Str != "0" {
			return fmt.Errorf("%s did not expire (lockkv %v, redis %v)", key, l, r)
		}
		return nil
	})
}

// keyspace compares every key, its type, its content and its lease.
func (p *lockPair) keyspace(keys ...string) {
	p.t.Helper()
	p.DoSorted("KEYS", "*")
	for _, k := range keys {
		v := p.Do("TYPE", k)
		switch v.Str {
		case "hash":
			p.DoPairsSorted("HGETALL", k)
		case "string":
			p.Do("GET", k)
		case "zset":
			p.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
		case "list":
			p.Do("LRANGE", k, "0", "-1")
		}
		p.DoLease("PTTL", k)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

const (
	clientA = "8743c9c0-0795-4907-87fd-6c719a6b4586:1"
	clientB = "8743c9c0-0795-4907-87fd-6c719a6b4586:2"
	clientC = "1b5e7a7e-3c3f-4b1e-9d4a-0f8d7b1d2c3e:57"
)

func TestLocksReentrant(t *testing.T) {
	p := newLockPair(t)
	lock, ch := "myLock", "redisson_lock__channel:{myLock}"
	sub := Connect(t)
	sub.Do("SUBSCRIBE", ch)
	p.run(lockscripts.Acquire, []string{lock}, "30000", clientA)          // acquired: nil
	p.run(lockscripts.Acquire, []string{lock}, "30000", clientA)          // reentry: nil, count 2
	p.run(lockscripts.Acquire, []string{lock}, "30000", clientB)          // busy: pttl
	p.run(lockscripts.Renew, []string{lock}, "30000", clientB)            // not the owner: 0
	p.run(lockscripts.Renew, []string{lock}, "45000", clientA)            // watchdog: 1
	p.run(lockscripts.Release, []string{lock, ch}, "0", "30000", clientB) // not the owner: nil
	p.keyspace(lock)
	p.run(lockscripts.Release, []string{lock, ch}, "0", "30000", clientA) // 0: still held once
	p.run(lockscripts.Release, []string{lock, ch}, "0", "30000", clientA) // 1: released, published
	sub.Receive()
	p.run(lockscripts.Acquire, []string{lock}, "30000", clientB)
	p.run(lockscripts.ForceRelease, []string{lock, ch}, "0")
	sub.Receive()
	p.run(lockscripts.ForceRelease, []string{lock, ch}, "0")
	p.keyspace(lock)
	sub.NoReply(20 * time.Millisecond)
}

func TestLocksReentrantLease(t *testing.T) {
	p := newLockPair(t)
	lock := "leaseLock"
	p.run(lockscripts.Acquire, []string{lock}, "80", clientA)
	p.run(lockscripts.Acquire, []string{lock}, "80", clientB)
	p.waitGone(lock)
	// The lease ran out: B gets the lock, A's reentry count is gone.
	p.run(lockscripts.Acquire, []string{lock}, "30000", clientB)
	p.run(lockscripts.Acquire, []string{lock}, "30000", clientA)
	p.run(lockscripts.Renew, []string{lock}, "30000", clientA)
	p.keyspace(lock)
	// Wrong type under the lock name.
	p.Do("SET", "strLock", "x")
	p.run(lockscripts.Acquire, []string{"strLock"}, "30000", clientA)
}

func TestLocksReadWrite(t *testing.T) {
	p := newLockPair(t)
	lock, ch := "rwLock", "redisson_rwlock:{rwLock}"
	wA := clientA + ":write"
	p.run(lockscripts.RWReadAcquire, []string{lock}, "30000", clientA, wA)
	p.run(lockscripts.RWReadAcquire, []string{lock}, "30000", clientB, clientB+":write")
	p.run(lockscripts.RWWriteAcquire, []string{lock}, "30000", clientC+":write") // readers hold it: pttl
	p.keyspace(lock)
	p.run(lockscripts.RWReadRelease, []string{lock, ch}, "0", clientA)
	p.run(lockscripts.RWReadRelease, []string{lock, ch}, "0", clientA) // not held any more: nil
	p.run(lockscripts.RWReadRelease, []string{lock, ch}, "0", clientB) // last reader: 1
	p.run(lockscripts.RWWriteAcquire, []string{lock}, "30000", wA)
	p.run(lockscripts.RWWriteAcquire, []string{lock}, "30000", wA)                       // reentrant writer
	p.run(lockscripts.RWReadAcquire, []string{lock}, "30000", clientB, clientB+":write") // blocked: pttl
	p.run(lockscripts.RWReadAcquire, []string{lock}, "30000", clientA, wA)               // same thread may read
	p.keyspace(lock)
	p.run(lockscripts.RWWriteRelease, []string{lock, ch}, "0", "30000", wA) // 0
	p.run(lockscripts.RWWriteRelease, []string{lock, ch}, "0", "30000", wA) // downgrade to read: 1
	p.keyspace(lock)
	p.run(lockscripts.RWReadAcquire, []string{lock}, "30000", clientB, clientB+":write")
	p.run(lockscripts.RWReadRelease, []string{lock, ch}, "0", clientA)
	p.run(lockscripts.RWReadRelease, []string{lock, ch}, "0", clientB)
	p.run(lockscripts.RWWriteRelease, []string{lock, ch}, "0", "30000", wA)
	p.keyspace(lock)
}

func TestLocksSemaphore(t *testing.T) {
	p := newLockPair(t)
	sem, ch := "sem", "redisson_sc:{sem}"
	sub := Connect(t)
	sub.Do("SUBSCRIBE", ch)
	p.run(lockscripts.SemTryAcquire, []string{sem}, "1") // no permits yet
	p.run(lockscripts.SemTrySetPermits, []string{sem, ch}, "3")
	sub.Receive()
	p.run(lockscripts.SemTrySetPermits, []string{sem, ch}, "5")
	p.run(lockscripts.SemTryAcquire, []string{sem}, "2")
	p.run(lockscripts.SemTryAcquire, []string{sem}, "2")
	p.run(lockscripts.SemTryAcquire, []string{sem}, "1")
	p.run(lockscripts.SemTryAcquire, []string{sem}, "1")
	p.run(lockscripts.SemRelease, []string{sem, ch}, "2")
	sub.Receive()
	p.run(lockscripts.SemTryAcquire, []string{sem}, "x")
	p.keyspace(sem)
}

func TestLocksPermitExpirableSemaphore(t *testing.T) {
	p := newLockPair(t)
	avail, timeouts, ch := "pes", "redisson__timeout__set:{pes}", "redisson_sc:{pes}"
	p.Do("SET", avail, "2")
	now := int64(1700000000000)
	ts := func(d int64) string { return i64(now + d) }
	p.run(lockscripts.PESTryAcquire, []string{avail, timeouts}, "1", "id-a", ts(1000), ts(0))
	p.run(lockscripts.PESTryAcquire, []string{avail, timeouts}, "1", "id-b", ts(2000), ts(0))
	p.run(lockscripts.PESTryAcquire, []string{avail, timeouts}, "1", "id-c", ts(3000), ts(10)) // none left
	p.keyspace(avail, timeouts)
	// id-a's permit expired by the time id-c asks again.
	p.run(lockscripts.PESTryAcquire, []string{avail, timeouts}, "1", "id-c", ts(4000), ts(1500))
	p.run(lockscripts.PESRelease, []string{avail, timeouts, ch}, "id-b")
	p.run(lockscripts.PESRelease, []string{avail, timeouts, ch}, "id-b")
	p.run(lockscripts.PESRelease, []string{avail, timeouts, ch}, "id-a")
	p.keyspace(avail, timeouts)
}

func TestLocksCountDownLatch(t *testing.T) {
	p := newLockPair(t)
	latch, ch := "latch", "redisson_countdownlatch__channel__{latch}"
	sub := Connect(t)
	sub.Do("SUBSCRIBE", ch)
	p.run(lockscripts.LatchTrySetCount, []string{latch, ch}, "1", "3")
	sub.Receive()
	p.run(lockscripts.LatchTrySetCount, []string{latch, ch}, "1", "5")
	p.run(lockscripts.LatchCountDown, []string{latch, ch}, "0")
	p.run(lockscripts.LatchCountDown, []string{latch, ch}, "0")
	p.keyspace(latch)
	p.run(lockscripts.LatchCountDown, []string{latch, ch}, "0")
	sub.Receive()
	p.keyspace(latch)
	p.run(lockscripts.LatchCountDown, []string{latch, ch}, "0") // below zero: deleted again
	p.keyspace(latch)
	sub.NoReply(20 * time.Millisecond)
}

func TestLocksSpin(t *testing.T) {
	p := newLockPair(t)
	lock := "spin"
	p.run(lockscripts.SpinAcquire, []string{lock}, clientA, "30000")
	p.run(lockscripts.SpinAcquire, []string{lock}, clientB, "30000")
	p.run(lockscripts.SpinRelease, []string{lock}, clientB)
	p.run(lockscripts.SpinRelease, []string{lock}, clientA)
	p.run(lockscripts.SpinAcquire, []string{lock}, clientB, "50")
	p.waitGone(lock)
	p.run(lockscripts.SpinAcquire, []string{lock}, clientA, "30000")
	p.keyspace(lock)
}

func TestLocksFenced(t *testing.T) {
	p := newLockPair(t)
	lock, tok := "fenced", "fenced:token"
	p.run(lockscripts.FencedAcquire, []string{lock, tok}, "30000", clientA)
	p.run(lockscripts.FencedAcquire, []string{lock, tok}, "30000", clientA)
	p.run(lockscripts.FencedAcquire, []string{lock, tok}, "30000", clientB)
	p.Do("DEL", lock)
	p.run(lockscripts.FencedAcquire, []string{lock, tok}, "30000", clientB)
	p.keyspace(lock, tok)
}

func i64(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

func TestLocksFair(t *testing.T) {
	p := newLockPair(t)
	lock, queue, deadlines, ch := "fair", "redisson_lock_queue:{fair}", "redisson_lock_timeout:{fair}", "redisson_lock__channel:{fair}"
	keys := []string{lock, queue, deadlines}
	rkeys := []string{lock, queue, deadlines, ch}
	subB := Connect(t)
	subB.Do("SUBSCRIBE", ch+":"+clientB)
	now := int64(1700000000000)
	at := func(d int64) string { return i64(now + d) }
	p.run(lockscripts.FairAcquire, keys, "30000", clientA, "5000", at(0))  // A holds it
	p.run(lockscripts.FairAcquire, keys, "30000", clientA, "5000", at(1))  // reentry
	p.run(lockscripts.FairAcquire, keys, "30000", clientB, "5000", at(2))  // B queues
	p.run(lockscripts.FairAcquire, keys, "30000", clientC, "5000", at(3))  // C queues behind B
	p.run(lockscripts.FairAcquire, keys, "30000", clientB, "5000", at(10)) // B asks again: its remaining wait
	p.keyspace(lock, queue, deadlines)
	p.run(lockscripts.FairRelease, rkeys, "0", "30000", clientA, at(20)) // 0: still held once
	p.run(lockscripts.FairRelease, rkeys, "0", "30000", clientA, at(21)) // 1: B is told
	subB.Receive()
	p.run(lockscripts.FairAcquire, keys, "30000", clientC, "5000", at(22)) // not C's turn
	p.run(lockscripts.FairAcquire, keys, "30000", clientB, "5000", at(23)) // B's turn
	p.keyspace(lock, queue, deadlines)
	p.run(lockscripts.FairRelease, rkeys, "0", "30000", clientB, at(24))
	// C waited too long: it is pruned, and a newcomer gets the lock.
	p.run(lockscripts.FairAcquire, keys, "30000", clientA, "5000", at(100000))
	p.keyspace(lock, queue, deadlines)
	p.run(lockscripts.FairRelease, rkeys, "0", "30000", clientB, at(100001)) // not the owner
	p.run(lockscripts.FairRelease, rkeys, "0", "30000", clientA, at(100002))
	p.keyspace(lock, queue, deadlines)
	subB.NoReply(20 * time.Millisecond)
}
