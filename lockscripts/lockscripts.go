// Package lockscripts holds the Lua scripts of the lock families lockkv is
// tested with, written after the data layout and protocol Redisson
// documents: a lock is a hash {"uuid:threadId": holdCount} with a
// millisecond lease, waiters learn the remaining lease from PTTL, and a
// release publishes on redisson_lock__channel:{name}. The conformance suite
// runs them against lockkv and Redis; the cluster tests run them across
// failovers.
package lockscripts

const (
	// Acquire takes or re-enters the reentrant lock: KEYS[1] lock; ARGV[1]
	// lease ms, ARGV[2] owner. nil when held, else the remaining lease.
	Acquire = `if (redis.call('exists', KEYS[1]) == 0) then
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

	// Release leaves the reentrant lock once: KEYS[1] lock, KEYS[2] channel;
	// ARGV[1] message, ARGV[2] lease, ARGV[3] owner. nil when not the owner,
	// 0 when still held, 1 when released (and published).
	Release = `if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
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

	// Renew is the watchdog renewal: only the owner extends the lease.
	Renew = `if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return 1;
end;
return 0;`

	// ForceRelease is the forced unlock.
	ForceRelease = `if (redis.call('del', KEYS[1]) == 1) then
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1
else
    return 0
end`

	// RWReadAcquire takes the read lock: KEYS[1] lock; ARGV[1] lease, ARGV[2] owner, ARGV[3] write owner name of the same thread.
	RWReadAcquire = `local mode = redis.call('hget', KEYS[1], 'mode');
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

	// RWWriteAcquire takes the write lock: KEYS[1] lock; ARGV[1] lease, ARGV[2] write owner.
	RWWriteAcquire = `local mode = redis.call('hget', KEYS[1], 'mode');
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

	// RWReadRelease leaves the read lock: KEYS[1] lock, KEYS[2] channel; ARGV[1] message, ARGV[2] owner.
	RWReadRelease = `local mode = redis.call('hget', KEYS[1], 'mode');
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

	// RWWriteRelease leaves the write lock (with downgrade): KEYS[1] lock, KEYS[2] channel;
	// ARGV[1] message, ARGV[2] lease, ARGV[3] write owner.
	RWWriteRelease = `local mode = redis.call('hget', KEYS[1], 'mode');
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

	// SemTryAcquire takes permits: KEYS[1] permits; ARGV[1] count.
	SemTryAcquire = `local value = redis.call('get', KEYS[1]);
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
    local val = redis.call('decrby', KEYS[1], ARGV[1]);
    return 1;
end;
return 0;`
	// SemRelease returns permits: KEYS[1] permits, KEYS[2] channel; ARGV[1] count.
	SemRelease = `local value = redis.call('incrby', KEYS[1], ARGV[1]);
redis.call('publish', KEYS[2], value);
return value;`
	// SemTrySetPermits sets the permits once.
	SemTrySetPermits = `local value = redis.call('get', KEYS[1]);
if (value == false or value == 0) then
    redis.call('set', KEYS[1], ARGV[1]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1;
end;
return 0;`

	// PESTryAcquire takes a permit of the permit-expirable semaphore: KEYS[1] available count, KEYS[2]
	// timeout zset {permitId: expiresAt}; ARGV[1] permits, ARGV[2] permit
	// id, ARGV[3] expiresAt, ARGV[4] now.
	PESTryAcquire = `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[4], 'limit', 0, ARGV[1]);
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
	// PESRelease returns a permit: KEYS[1] available, KEYS[2] timeouts,
	// KEYS[3] channel; ARGV[1] permit id.
	PESRelease = `local expire = redis.call('zscore', KEYS[2], ARGV[1]);
local removed = redis.call('zrem', KEYS[2], ARGV[1]);
if tonumber(removed) ~= 1 then
    return 0;
end;
local value = redis.call('incrby', KEYS[1], 1);
redis.call('publish', KEYS[3], value);
return 1;`

	// LatchTrySetCount sets the countdown latch: KEYS[1] count, KEYS[2] channel; ARGV[1] message, ARGV[2] count.
	LatchTrySetCount = `if redis.call('exists', KEYS[1]) == 0 then
    redis.call('set', KEYS[1], ARGV[2]);
    redis.call('publish', KEYS[2], ARGV[1]);
    return 1
else
    return 0
end`
	// LatchCountDown counts the latch down.
	LatchCountDown = `local v = redis.call('decr', KEYS[1]);
if v <= 0 then redis.call('del', KEYS[1]) end;
if v == 0 then redis.call('publish', KEYS[2], ARGV[1]) end;
return v`

	// SpinAcquire and SpinRelease are the spin lock: plain SET NX PX and an
	// owner-checked delete.
	SpinAcquire = `if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return redis.call('pttl', KEYS[1]) * -1`
	SpinRelease = `if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0`

	// FencedAcquire is the fenced lock: the reentrant lock plus a token from INCR on KEYS[2],
	// returned with every successful acquire; ARGV[1] lease, ARGV[2] owner.
	FencedAcquire = `if (redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    local token = redis.call('incr', KEYS[2]);
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('hset', KEYS[1], 'token', token);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return {token, 'ok'};
end;
return {redis.call('hget', KEYS[1], 'token') + 0, redis.call('pttl', KEYS[1])};`
)

const (
	// FairAcquire takes the fair lock: KEYS[1] lock hash, KEYS[2] wait queue (list of owners),
	// KEYS[3] wait deadlines (zset owner -> ms); ARGV[1] lease, ARGV[2]
	// owner, ARGV[3] wait allowance, ARGV[4] now (ms, from the client).
	FairAcquire = `while true do
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

	// FairRelease leaves the fair lock: KEYS[1] lock, KEYS[2] queue, KEYS[3]
	// deadlines, KEYS[4] channel prefix; ARGV[1] message, ARGV[2] lease,
	// ARGV[3] owner, ARGV[4] now.
	FairRelease = `while true do
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
