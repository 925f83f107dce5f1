package lock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
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
		testutil.Eventually(t, 10*time.Second, func() error { // until b queued
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

// javaService plays a Java service on Redisson 3.27.0: Redisson's own
// scripts (the bytes lock/ sends too), sent with EVAL as Redisson does by
// default, with Redisson's KEYS and ARGV, under javaOwner.
type javaService struct {
	t   *testing.T
	rdb *redis.Client
}

func (j javaService) eval(src string, keys []string, args ...any) (any, error) {
	return j.rdb.Eval(context.Background(), src, keys, args...).Result()
}

// lock is RedissonLock.tryLockInnerAsync with the watchdog's 30 s.
func (j javaService) lock(name string) (any, error) {
	return j.eval(lock.RedissonLockAcquire, []string{name}, 30000, javaOwner)
}

// unlock is RedissonLock.unlockInnerAsync: the latch key
// redisson_unlock_latch:{name}:<request id>, UNLOCK_MESSAGE "0", PUBLISH,
// the 13.5 s latch timeout.
func (j javaService) unlock(name string) (any, error) {
	return j.eval(lock.RedissonLockRelease,
		[]string{name, "redisson_lock__channel:{" + name + "}", "redisson_unlock_latch:{" + name + "}:0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
		"0", 30000, javaOwner, "publish", 13500)
}

// TestRedissonWrittenLock: a lock written by Redisson's own scripts as a
// Java service sends them blocks this package's holders, and their waiters
// take it when the Java side's unlock publishes Redisson's unlock message
// (the reentrant lock's "0", and the write lock's READ_UNLOCK_MESSAGE "1"
// that lets every waiting reader in); the other way round, the Java side's
// acquire is refused while a Go holder holds the lock, and a Java waiter
// hears the Go unlock's "0".
func TestRedissonWrittenLock(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		rdb := s.rdb(t)
		bg := context.Background()
		java := javaService{t, rdb}
		if _, err := java.lock("shared"); err != redis.Nil {
			t.Fatalf("Java acquire = %v, want nil (acquired)", err)
		}
		requireHash(t, rdb, "shared", map[string]string{javaOwner: "1"})
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
		if v, err := java.unlock("shared"); err != nil || v != int64(1) {
			t.Fatalf("Java release = %v, %v", v, err)
		}
		// The lease is the watchdog's 30 s: only the message can wake it.
		if err := recv(t, got, 10*time.Second, "Go waiter after the Java unlock"); err != nil {
			t.Fatal(err)
		}
		// Now Go holds it: Java is refused with the remaining lease.
		if v, err := java.lock("shared"); err != nil || v.(int64) <= 0 {
			t.Fatalf("Java acquire on the Go-held lock = %v, %v; want its PTTL", v, err)
		}
		rdb.Del(bg, "redisson_unlock_latch:{shared}:0a1b2c3d4e5f60718293a4b5c6d7e8f9")
		if v, err := java.unlock("shared"); err != redis.Nil {
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
		if _, err := java.lock("shared"); err != redis.Nil {
			t.Fatalf("Java acquire after the Go unlock = %v", err)
		}

		// A Java writer (RedissonWriteLock, field "<owner>:write") holds the
		// read-write lock; two Go readers wait, and the writer's unlock
		// ("1" on redisson_rwlock:{rw}) lets both in.
		jw := javaOwner + ":write"
		if _, err := java.eval(lock.RedissonWriteAcquire, []string{"rw"}, 30000, jw); err != redis.Nil {
			t.Fatalf("Java write acquire = %v", err)
		}
		requireHash(t, rdb, "rw", map[string]string{"mode": "write", jw: "1"})
		rw := c.ReadWriteLock("rw")
		read := make(chan error, 2)
		for range 2 {
			r := holderCtx(c)
			go func() { read <- rw.ReadLock().Lock(r) }()
		}
		waitSubscribed(t, rdb, "redisson_rwlock:{rw}", 1)
		none(t, read, 50*time.Millisecond, "Go readers while the Java writer holds")
		v, err := java.eval(lock.RedissonWriteRelease,
			[]string{"rw", "redisson_rwlock:{rw}", "redisson_unlock_latch:{rw}:ffeeddccbbaa99887766554433221100"},
			"1", 30000, jw, "publish", 13500)
		if err != nil || v != int64(1) {
			t.Fatalf("Java write release = %v, %v", v, err)
		}
		for range 2 {
			if err := recv(t, read, 10*time.Second, "Go reader after the Java writer left"); err != nil {
				t.Fatal(err)
			}
		}
		if h := rdb.HGetAll(bg, "rw").Val(); h["mode"] != "read" || len(h) != 3 {
			t.Fatalf("HGETALL rw = %v, want mode read and two readers", h)
		}
	})
}
