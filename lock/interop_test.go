package lock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/conformance/lockscripts"
	"github.com/lockkv/lockkv/lock"
)

// javaOwner is a field as a Java service's Redisson writes it: its
// client's UUID and a thread ID.
const javaOwner = "1b5e7a7e-3c3f-4b1e-9d4a-0f8d7b1d2c3e:57"

// TestRedissonLayout: what this package writes is Redisson's layout,
// key for key: the lock hash {"<id>:<holder>": count} with its lease, the
// fair lock's queue and deadline zset, the read-write lock's mode field
// and per-entry lease keys, the fenced lock's token.
func TestRedissonLayout(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		const id = "8743c9c0-0795-4907-87fd-6c719a6b4586"
		c := s.client(t, &lock.Options{ID: id})
		rdb := s.rdb(t)
		bg := context.Background()
		h1, h2 := c.NewHolder(), c.NewHolder()
		a, b := lock.WithHolder(bg, h1), lock.WithHolder(bg, h2)
		fa, fb := fmt.Sprintf("%s:%d", id, h1), fmt.Sprintf("%s:%d", id, h2)

		// RLock.
		l := c.Lock("rl")
		l.Lock(a)
		l.Lock(a)
		requireHash(t, rdb, "rl", map[string]string{fa: "2"})
		if d := rdb.PTTL(bg, "rl").Val(); d <= 29*time.Second || d > 30*time.Second {
			t.Fatalf("PTTL rl = %v, want the watchdog's 30s", d)
		}
		l.Unlock(a)
		requireHash(t, rdb, "rl", map[string]string{fa: "1"})
		l.Unlock(a)
		requireKeys(t, rdb) // the unlock latch is gone too

		// RFairLock: a holds, b waits in the queue with its deadline.
		f := c.FairLock("fl")
		f.Lock(a)
		waited := make(chan error, 1)
		go func() { waited <- f.Lock(b) }()
		eventually(t, 10*time.Second, "b queued", func() error {
			q := rdb.LRange(bg, "redisson_lock_queue:{fl}", 0, -1).Val()
			if fmt.Sprint(q) != fmt.Sprint([]string{fb}) {
				return fmt.Errorf("queue %v", q)
			}
			return nil
		})
		z := rdb.ZRangeWithScores(bg, "redisson_lock_timeout:{fl}", 0, -1).Val()
		now := float64(time.Now().UnixMilli())
		// b's deadline: the lock's lease left plus the 5 min allowance.
		if len(z) != 1 || z[0].Member != fb || z[0].Score < now+5*60000 || z[0].Score > now+5*60000+30000+1000 {
			t.Fatalf("timeout zset %v, want {%s: now+lease+300000}", z, fb)
		}
		requireHash(t, rdb, "fl", map[string]string{fa: "1"})
		f.Unlock(a)
		if err := recv(t, waited, 10*time.Second, "fair waiter"); err != nil {
			t.Fatal(err)
		}
		requireHash(t, rdb, "fl", map[string]string{fb: "1"})
		f.Unlock(b)
		requireKeys(t, rdb)

		// RReadWriteLock.
		rw := c.ReadWriteLock("rw")
		rw.ReadLock().Lock(a)
		requireHash(t, rdb, "rw", map[string]string{"mode": "read", fa: "1"})
		requireKeys(t, rdb, "rw", "{rw}:"+fa+":rwlock_timeout:1")
		rw.ReadLock().Unlock(a)
		requireKeys(t, rdb)
		rw.WriteLock().Lock(a)
		requireHash(t, rdb, "rw", map[string]string{"mode": "write", fa + ":write": "1"})
		rw.ReadLock().Lock(a) // a writer may read
		requireHash(t, rdb, "rw", map[string]string{"mode": "write", fa + ":write": "1", fa: "1"})
		rw.WriteLock().Unlock(a) // down to a read lock
		requireHash(t, rdb, "rw", map[string]string{"mode": "read", fa: "1"})
		rw.ReadLock().Unlock(a)
		requireKeys(t, rdb)

		// RFencedLock.
		fl := c.FencedLock("fenced")
		tok, _ := fl.LockAndGetToken(a)
		requireHash(t, rdb, "fenced", map[string]string{fa: "1"})
		if v := rdb.Get(bg, "redisson_lock_token:{fenced}").Val(); v != fmt.Sprint(tok) || tok != 1 {
			t.Fatalf("token key %q, token %d", v, tok)
		}
		fl.Unlock(a)
		requireKeys(t, rdb, "redisson_lock_token:{fenced}")

		// RPermitExpirableSemaphore: {name}:timeout holds raw permit IDs.
		p := c.PermitExpirableSemaphore("pes")
		p.TrySetPermits(bg, 2)
		pid, _ := p.Acquire(bg, 0)
		z = rdb.ZRangeWithScores(bg, "{pes}:timeout", 0, -1).Val()
		if len(z) != 1 || fmt.Sprintf("%x", z[0].Member) != pid || z[0].Score != 922337203685477 {
			t.Fatalf("{pes}:timeout = %v, want the permit %s scored 922337203685477", z, pid)
		}
		if v := rdb.Get(bg, "pes").Val(); v != "1" {
			t.Fatalf("pes = %q, want 1", v)
		}
	})
}

func requireHash(t *testing.T, rdb *redis.Client, key string, want map[string]string) {
	t.Helper()
	got := rdb.HGetAll(context.Background(), key).Val()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("HGETALL %s = %v, want %v", key, got, want)
	}
}

// requireKeys requires the keyspace to be exactly keys.
func requireKeys(t *testing.T, rdb *redis.Client, keys ...string) {
	t.Helper()
	got := rdb.Keys(context.Background(), "*").Val()
	have := map[string]bool{}
	for _, k := range got {
		have[k] = true
	}
	if len(got) != len(keys) {
		t.Fatalf("keys %v, want %v", got, keys)
	}
	for _, k := range keys {
		if !have[k] {
			t.Fatalf("keys %v, want %v", got, keys)
		}
	}
}

// TestRedissonWrittenLock: a lock written in Redisson's layout by
// Redisson's scripts as a Java service runs them (conformance/lockscripts)
// blocks this package's holders, and their waiters take it when the Java
// side's unlock publishes Redisson's unlock message; the other way round,
// the Java side's acquire is refused while a Go holder holds the lock.
func TestRedissonWrittenLock(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		rdb := s.rdb(t)
		bg := context.Background()
		javaAcquire := func(name string) (any, error) {
			return redis.NewScript(lockscripts.Acquire).Run(bg, rdb, []string{name}, 30000, javaOwner).Result()
		}
		javaRelease := func(name string) (any, error) {
			return redis.NewScript(lockscripts.Release).Run(bg, rdb,
				[]string{name, "redisson_lock__channel:{" + name + "}"}, "0", 30000, javaOwner).Result()
		}
		if _, err := javaAcquire("shared"); err != redis.Nil {
			t.Fatalf("Java acquire = %v, want nil (acquired)", err)
		}
		c := s.client(t, nil)
		a := holderCtx(c)
		l := c.Lock("shared")
		if ok, err := l.TryLock(a, 0, 0); ok || err != nil {
			t.Fatalf("Go TryLock on the Java-held lock = %v, %v", ok, err)
		}
		if locked, _ := l.IsLocked(a); !locked {
			t.Fatal("IsLocked false for the Java-held lock")
		}
		if d, _ := l.RemainingLease(a); d <= 0 || d > 30*time.Second {
			t.Fatalf("RemainingLease %v", d)
		}
		got := make(chan error, 1)
		go func() { got <- l.Lock(a) }()
		waitSubscribed(t, rdb, "redisson_lock__channel:{shared}", 1)
		none(t, got, 50*time.Millisecond, "Go waiter while Java holds")
		if v, err := javaRelease("shared"); err != nil || v != int64(1) {
			t.Fatalf("Java release = %v, %v", v, err)
		}
		if err := recv(t, got, 10*time.Second, "Go waiter after the Java unlock"); err != nil {
			t.Fatal(err)
		}
		// Now Go holds it: Java is refused with the remaining lease.
		if v, err := javaAcquire("shared"); err != nil || v.(int64) <= 0 {
			t.Fatalf("Java acquire on the Go-held lock = %v, %v; want its PTTL", v, err)
		}
		if v, err := javaRelease("shared"); err != redis.Nil {
			t.Fatalf("Java release of the Go-held lock = %v, %v; want nil (not the owner)", v, err)
		}
		// A Java waiter subscribed to the channel gets the Go unlock's
		// message, Redisson's UNLOCK_MESSAGE "0".
		sub := rdb.Subscribe(bg, "redisson_lock__channel:{shared}")
		defer sub.Close()
		if _, err := sub.Receive(bg); err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}
		msg, err := sub.ReceiveMessage(bg)
		if err != nil || msg.Payload != "0" {
			t.Fatalf("message %v, %v; want \"0\"", msg, err)
		}
		if _, err := javaAcquire("shared"); err != redis.Nil {
			t.Fatalf("Java acquire after the Go unlock = %v", err)
		}
	})
}
