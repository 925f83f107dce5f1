package conformance

import (
	"strings"
	"testing"
	"time"
)

// Lock-family scenarios. The scripts are lockkv's own, written after the
// data layout and protocol Redisson documents: a lock is a hash
// {"uuid:threadId": holdCount} with a millisecond lease, waiters learn the
// remaining lease from PTTL, and a release publishes on
// redisson_lock__channel:{name}. Every reply and the final keyspace must
// be the same on lockkv and Redis; lease times are compared within a
// tolerance, as both servers run on the wall clock.

const (
	// KEYS[1] lock; ARGV[1] lease ms, ARGV[2] owner.
	lockAcquire = `if (redis.call('exists', KEYS[1]) == 0) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return redis.call('pttl', KEYS[1]);`

	// KEYS[1] lock, KEYS[2] channel; ARGV[1] message, ARGV[2] lease, ARGV[3] owner.
	lockRelease = `if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2]);
    return 0;
else
    redis.call('del', KEYS[1]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return nil;`

	// Watchdog renewal: only the owner extends the lease.
	lockRenew = `if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return 1;
end;
return 0;`

	// Forced unlock.
	lockForceRelease = `if (redis.call('del', KEYS[1]) == 1) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1
else
    return 0
end`

	// Read lock: KEYS[1] lock; ARGV[1] lease, ARGV[2] owner, ARGV[3] write owner name of the same thread.
	rwReadAcquire = `local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('hset', KEYS[1], 'mode', 'read');
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
    local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1);
    local remainTime = redis.call('pttl', KEYS[1]);
    redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1]));
    return nil;
end;
return redis.call('pttl', KEYS[1]);`

	// Write lock: KEYS[1] lock; ARGV[1] lease, ARGV[2] write owner.
	rwWriteAcquire = `local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('hset', KEYS[1], 'mode', 'write');
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if (mode == 'write') then
    if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
        redis.call('hincrby', KEYS[1], ARGV[2], 1);
        local currentExpire = redis.call('pttl', KEYS[1]);
        redis.call('pexpire', KEYS[1], currentExpire + ARGV[1]);
        return nil;
    end;
end;
return redis.call('pttl', KEYS[1]);`

	// Read unlock: KEYS[1] lock, KEYS[2] channel; ARGV[1] message, ARGV[2] owner.
	rwReadRelease = `local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
local lockExists = redis.call('hexists', KEYS[1], ARGV[2]);
if (lockExists == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1);
if (counter == 0) then
    redis.call('hdel', KEYS[1], ARGV[2]);
end;
if (redis.call('hlen', KEYS[1]) > 1) then
    return 0;
end;
redis.call('del', KEYS[1]);
redis.call('publish', KEYS[2], ARGV[1]);
return 1;`

	// Write unlock (with downgrade): KEYS[1] lock, KEYS[2] channel;
	// ARGV[1] message, ARGV[2] lease, ARGV[3] write owner.
	rwWriteRelease = `local mode = redis.call('hget', KEYS[1], 'mode');
if (mode == false) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
if (mode == 'write') then
    local lockExists = redis.call('hexists', KEYS[1], ARGV[3]);
    if (lockExists == 0) then
        return nil;
    else
        local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
        if (counter > 0) then
            redis.call('pexpire', KEYS[1], ARGV[2]);
            return 0;
        else
            redis.call('hdel', KEYS[1], ARGV[3]);
            if (redis.call('hlen', KEYS[1]) == 1) then
                redis.call('del', KEYS[1]);
                redis.call('publish', KEYS[2], ARGV[1]);
            else
                redis.call('hset', KEYS[1], 'mode', 'read');
            end;
            return 1;
        end;
    end;
end;
return nil;`

	// Semaphore: KEYS[1] permits; ARGV[1] count.
	semTryAcquire = `local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
    local val = redis.call('decrby', KEYS[1], ARGV[1]);
    return 1;
end;
return 0;`
	// KEYS[1] permits, KEYS[2] channel; ARGV[1] count.
	semRelease = `local value = redis.call('incrby', KEYS[1], ARGV[1]);
redis.call('publish', KEYS[2], value);
return value;`
	semTrySetPermits = `local value = redis.call('get', KEYS[1]);
if (value == false or value == 0) then
    redis.call('set', KEYS[1], ARGV[1]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return 0;`

	// Permit-expirable semaphore: KEYS[1] available count, KEYS[2]
	// timeout zset {permitId: expiresAt}; ARGV[1] permits, ARGV[2] permit
	// id, ARGV[3] expiresAt, ARGV[4] now.
	pesTryAcquire = `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[4], 'limit', 0, ARGV[1]);
if #expiredIds > 0 then
    redis.call('zrem', KEYS[2], unpack(expiredIds));
    local value = redis.call('incrby', KEYS[1], #expiredIds);
end;
local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
    redis.call('decrby', KEYS[1], ARGV[1]);
    redis.call('zadd', KEYS[2], ARGV[3], ARGV[2]);
    return ARGV[2];
end;
local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES');
if v[1] ~= nil and v[2] ~= ARGV[3] then
    return ':' .. tostring(v[2]);
end
return nil;`
	// KEYS[1] available, KEYS[2] timeouts, KEYS[3] channel; ARGV[1] permit id.
	pesRelease = `local expire = redis.call('zscore', KEYS[2], ARGV[1]);
local removed = redis.call('zrem', KEYS[2], ARGV[1]);
if tonumber(removed) ~= 1 then
    return 0;
end;
local value = redis.call('incrby', KEYS[1], 1);
redis.call('publish', KEYS[3], value);
return 1;`

	// Countdown latch: KEYS[1] count, KEYS[2] channel; ARGV[1] message, ARGV[2] count.
	latchTrySetCount = `if redis.call('exists', KEYS[1]) == 0 then
    redis.call('set', KEYS[1], ARGV[2]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1
else
    return 0
end`
	latchCountDown = `local v = redis.call('decr', KEYS[1]);
if v <= 0 then redis.call('del', KEYS[1]) end;
if v == 0 then redis.call('publish', KEYS[2], ARGV[1]) end;
return v`

	// Spin lock: plain SET NX PX, owner-checked delete.
	spinAcquire = `if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return redis.call('pttl', KEYS[1]) * -1`
	spinRelease = `if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0`

	// Fenced lock: the reentrant lock plus a token from INCR on KEYS[2],
	// returned with every successful acquire; ARGV[1] lease, ARGV[2] owner.
	fencedAcquire = `if (redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    local token = redis.call('incr', KEYS[2]);
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('hset', KEYS[1], 'token', token);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return {token, 'ok'};
end;
return {redis.call('hget', KEYS[1], 'token') + 0, redis.call('pttl', KEYS[1])};`
)

const (
	// Fair lock: KEYS[1] lock hash, KEYS[2] wait queue (list of owners),
	// KEYS[3] wait deadlines (zset owner -> ms); ARGV[1] lease, ARGV[2]
	// owner, ARGV[3] wait allowance, ARGV[4] now (ms, from the client).
	fairAcquire = `while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then break end;
    local deadline = redis.call('zscore', KEYS[3], head);
    if deadline == false or tonumber(deadline) <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) and (redis.call('llen', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
    redis.call('lpop', KEYS[2]);
    redis.call('zrem', KEYS[3], ARGV[2]);
    local waiting = redis.call('zrange', KEYS[3], 0, -1);
    for i = 1, #waiting do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), waiting[i]);
    end;
    redis.call('hset', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
local pos = redis.call('lpos', KEYS[2], ARGV[2]);
if pos then
    return redis.call('zscore', KEYS[3], ARGV[2]) - ARGV[3] - ARGV[4];
end;
local last = redis.call('lindex', KEYS[2], -1);
local wait;
if last ~= false then
    wait = redis.call('zscore', KEYS[3], last) - ARGV[4];
else
    wait = 30000;
end;
redis.call('rpush', KEYS[2], ARGV[2]);
redis.call('zadd', KEYS[3], wait + ARGV[3] + ARGV[4], ARGV[2]);
return wait;`

	// KEYS[1] lock, KEYS[2] queue, KEYS[3] deadlines, KEYS[4] channel
	// prefix; ARGV[1] message, ARGV[2] lease, ARGV[3] owner, ARGV[4] now.
	fairRelease = `while true do
    local head = redis.call('lindex', KEYS[2], 0);
    if head == false then break end;
    local deadline = redis.call('zscore', KEYS[3], head);
    if deadline == false or tonumber(deadline) <= tonumber(ARGV[4]) then
        redis.call('zrem', KEYS[3], head);
        redis.call('lpop', KEYS[2]);
    else
        break
    end;
end;
if (redis.call('exists', KEYS[1]) == 0) then
    local nextOwner = redis.call('lindex', KEYS[2], 0);
    if nextOwner ~= false then
        redis.call('publish', KEYS[4] .. ':' .. nextOwner, ARGV[1]);
    end;
    return 1;
end;
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil;
end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2]);
    return 0;
end;
redis.call('del', KEYS[1]);
local nextOwner = redis.call('lindex', KEYS[2], 0);
if nextOwner ~= false then
    redis.call('publish', KEYS[4] .. ':' .. nextOwner, ARGV[1]);
end;
return 1;`
)

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
	return p.DoApprox(60, cmd...)
}

// requireOnLockkv skips t unless lockkv knows every command (other
// families merge independently).
func requireOnLockkv(t *testing.T, names ...string) {
	t.Helper()
	c, err := Dial(LockkvAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, n := range names {
		v, err := c.Do(n)
		if err != nil || (v.Kind == '-' && strings.HasPrefix(v.Str, "ERR unknown command")) {
			t.Skipf("lockkv has no %s yet", strings.ToUpper(n))
		}
	}
}

// waitGone polls until key has expired on both servers.
func (p *lockPair) waitGone(key string) {
	p.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, _ := p.L.Do("EXISTS", key)
		r, _ := p.R.Do("EXISTS", key)
		if l.Str == "0" && r.Str == "0" {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s did not expire (lockkv %v, redis %v)", key, l, r)
		}
		time.Sleep(5 * time.Millisecond)
	}
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
		p.DoApprox(60, "PTTL", k)
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
	requireOnLockkv(t, "publish")
	p := newLockPair(t)
	lock, ch := "myLock", "redisson_lock__channel:{myLock}"
	sub := Connect(t)
	sub.Do("SUBSCRIBE", ch)
	p.run(lockAcquire, []string{lock}, "30000", clientA)          // acquired: nil
	p.run(lockAcquire, []string{lock}, "30000", clientA)          // reentry: nil, count 2
	p.run(lockAcquire, []string{lock}, "30000", clientB)          // busy: pttl
	p.run(lockRenew, []string{lock}, "30000", clientB)            // not the owner: 0
	p.run(lockRenew, []string{lock}, "45000", clientA)            // watchdog: 1
	p.run(lockRelease, []string{lock, ch}, "0", "30000", clientB) // not the owner: nil
	p.keyspace(lock)
	p.run(lockRelease, []string{lock, ch}, "0", "30000", clientA) // 0: still held once
	p.run(lockRelease, []string{lock, ch}, "0", "30000", clientA) // 1: released, published
	sub.Receive()
	p.run(lockAcquire, []string{lock}, "30000", clientB)
	p.run(lockForceRelease, []string{lock, ch}, "0")
	sub.Receive()
	p.run(lockForceRelease, []string{lock, ch}, "0")
	p.keyspace(lock)
	sub.NoReply(20 * time.Millisecond)
}

func TestLocksReentrantLease(t *testing.T) {
	p := newLockPair(t)
	lock := "leaseLock"
	p.run(lockAcquire, []string{lock}, "80", clientA)
	p.run(lockAcquire, []string{lock}, "80", clientB)
	p.waitGone(lock)
	// The lease ran out: B gets the lock, A's reentry count is gone.
	p.run(lockAcquire, []string{lock}, "30000", clientB)
	p.run(lockAcquire, []string{lock}, "30000", clientA)
	p.run(lockRenew, []string{lock}, "30000", clientA)
	p.keyspace(lock)
	// Wrong type under the lock name.
	p.Do("SET", "strLock", "x")
	p.run(lockAcquire, []string{"strLock"}, "30000", clientA)
}

func TestLocksReadWrite(t *testing.T) {
	requireOnLockkv(t, "publish")
	p := newLockPair(t)
	lock, ch := "rwLock", "redisson_rwlock:{rwLock}"
	wA := clientA + ":write"
	p.run(rwReadAcquire, []string{lock}, "30000", clientA, wA)
	p.run(rwReadAcquire, []string{lock}, "30000", clientB, clientB+":write")
	p.run(rwWriteAcquire, []string{lock}, "30000", clientC+":write") // readers hold it: pttl
	p.keyspace(lock)
	p.run(rwReadRelease, []string{lock, ch}, "0", clientA)
	p.run(rwReadRelease, []string{lock, ch}, "0", clientA) // not held any more: nil
	p.run(rwReadRelease, []string{lock, ch}, "0", clientB) // last reader: 1
	p.run(rwWriteAcquire, []string{lock}, "30000", wA)
	p.run(rwWriteAcquire, []string{lock}, "30000", wA)                       // reentrant writer
	p.run(rwReadAcquire, []string{lock}, "30000", clientB, clientB+":write") // blocked: pttl
	p.run(rwReadAcquire, []string{lock}, "30000", clientA, wA)               // same thread may read
	p.keyspace(lock)
	p.run(rwWriteRelease, []string{lock, ch}, "0", "30000", wA) // 0
	p.run(rwWriteRelease, []string{lock, ch}, "0", "30000", wA) // downgrade to read: 1
	p.keyspace(lock)
	p.run(rwReadAcquire, []string{lock}, "30000", clientB, clientB+":write")
	p.run(rwReadRelease, []string{lock, ch}, "0", clientA)
	p.run(rwReadRelease, []string{lock, ch}, "0", clientB)
	p.run(rwWriteRelease, []string{lock, ch}, "0", "30000", wA)
	p.keyspace(lock)
}

func TestLocksSemaphore(t *testing.T) {
	requireOnLockkv(t, "publish")
	p := newLockPair(t)
	sem, ch := "sem", "redisson_sc:{sem}"
	sub := Connect(t)
	sub.Do("SUBSCRIBE", ch)
	p.run(semTryAcquire, []string{sem}, "1") // no permits yet
	p.run(semTrySetPermits, []string{sem, ch}, "3")
	sub.Receive()
	p.run(semTrySetPermits, []string{sem, ch}, "5")
	p.run(semTryAcquire, []string{sem}, "2")
	p.run(semTryAcquire, []string{sem}, "2")
	p.run(semTryAcquire, []string{sem}, "1")
	p.run(semTryAcquire, []string{sem}, "1")
	p.run(semRelease, []string{sem, ch}, "2")
	sub.Receive()
	p.run(semTryAcquire, []string{sem}, "x")
	p.keyspace(sem)
}

func TestLocksPermitExpirableSemaphore(t *testing.T) {
	requireOnLockkv(t, "publish")
	p := newLockPair(t)
	avail, timeouts, ch := "pes", "redisson__timeout__set:{pes}", "redisson_sc:{pes}"
	p.Do("SET", avail, "2")
	now := int64(1700000000000)
	ts := func(d int64) string { return i64(now + d) }
	p.run(pesTryAcquire, []string{avail, timeouts}, "1", "id-a", ts(1000), ts(0))
	p.run(pesTryAcquire, []string{avail, timeouts}, "1", "id-b", ts(2000), ts(0))
	p.run(pesTryAcquire, []string{avail, timeouts}, "1", "id-c", ts(3000), ts(10)) // none left
	p.keyspace(avail, timeouts)
	// id-a's permit expired by the time id-c asks again.
	p.run(pesTryAcquire, []string{avail, timeouts}, "1", "id-c", ts(4000), ts(1500))
	p.run(pesRelease, []string{avail, timeouts, ch}, "id-b")
	p.run(pesRelease, []string{avail, timeouts, ch}, "id-b")
	p.run(pesRelease, []string{avail, timeouts, ch}, "id-a")
	p.keyspace(avail, timeouts)
}

func TestLocksCountDownLatch(t *testing.T) {
	requireOnLockkv(t, "publish")
	p := newLockPair(t)
	latch, ch := "latch", "redisson_countdownlatch__channel__{latch}"
	sub := Connect(t)
	sub.Do("SUBSCRIBE", ch)
	p.run(latchTrySetCount, []string{latch, ch}, "1", "3")
	sub.Receive()
	p.run(latchTrySetCount, []string{latch, ch}, "1", "5")
	p.run(latchCountDown, []string{latch, ch}, "0")
	p.run(latchCountDown, []string{latch, ch}, "0")
	p.keyspace(latch)
	p.run(latchCountDown, []string{latch, ch}, "0")
	sub.Receive()
	p.keyspace(latch)
	p.run(latchCountDown, []string{latch, ch}, "0") // below zero: deleted again
	p.keyspace(latch)
	sub.NoReply(20 * time.Millisecond)
}

func TestLocksSpin(t *testing.T) {
	p := newLockPair(t)
	lock := "spin"
	p.run(spinAcquire, []string{lock}, clientA, "30000")
	p.run(spinAcquire, []string{lock}, clientB, "30000")
	p.run(spinRelease, []string{lock}, clientB)
	p.run(spinRelease, []string{lock}, clientA)
	p.run(spinAcquire, []string{lock}, clientB, "50")
	p.waitGone(lock)
	p.run(spinAcquire, []string{lock}, clientA, "30000")
	p.keyspace(lock)
}

func TestLocksFenced(t *testing.T) {
	p := newLockPair(t)
	lock, tok := "fenced", "fenced:token"
	p.run(fencedAcquire, []string{lock, tok}, "30000", clientA)
	p.run(fencedAcquire, []string{lock, tok}, "30000", clientA)
	p.run(fencedAcquire, []string{lock, tok}, "30000", clientB)
	p.Do("DEL", lock)
	p.run(fencedAcquire, []string{lock, tok}, "30000", clientB)
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
	p.run(fairAcquire, keys, "30000", clientA, "5000", at(0))  // A holds it
	p.run(fairAcquire, keys, "30000", clientA, "5000", at(1))  // reentry
	p.run(fairAcquire, keys, "30000", clientB, "5000", at(2))  // B queues
	p.run(fairAcquire, keys, "30000", clientC, "5000", at(3))  // C queues behind B
	p.run(fairAcquire, keys, "30000", clientB, "5000", at(10)) // B asks again: its remaining wait
	p.keyspace(lock, queue, deadlines)
	p.run(fairRelease, rkeys, "0", "30000", clientA, at(20)) // 0: still held once
	p.run(fairRelease, rkeys, "0", "30000", clientA, at(21)) // 1: B is told
	subB.Receive()
	p.run(fairAcquire, keys, "30000", clientC, "5000", at(22)) // not C's turn
	p.run(fairAcquire, keys, "30000", clientB, "5000", at(23)) // B's turn
	p.keyspace(lock, queue, deadlines)
	p.run(fairRelease, rkeys, "0", "30000", clientB, at(24))
	// C waited too long: it is pruned, and a newcomer gets the lock.
	p.run(fairAcquire, keys, "30000", clientA, "5000", at(100000))
	p.keyspace(lock, queue, deadlines)
	p.run(fairRelease, rkeys, "0", "30000", clientB, at(100001)) // not the owner
	p.run(fairRelease, rkeys, "0", "30000", clientA, at(100002))
	p.keyspace(lock, queue, deadlines)
	subB.NoReply(20 * time.Millisecond)
}
