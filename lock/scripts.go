package lock

// Redisson's Lua scripts, byte for byte as Redisson 3.27.0 sends them.
//
// Each constant is the concatenation of the same Java string literals, in
// the same order, as the Redisson method named above it (Redisson is
// Apache-2.0; see NOTICE in this directory). They were copied from
// Redisson's source tree at commit 0482efe (January 2024); the changelogs
// of 3.26.0 to 3.27.1 record no change to any of them. Because the bytes are
// Redisson's, EVALSHA of one side finds the script the other side loaded,
// and every reply, key and message is the one Redisson reads. The KEYS and
// ARGV each script takes are noted where the Go code calls it.
//
// Do not reformat these strings: TestScriptDigests checks their SHA-1s
// against those of the same Java expressions hashed by a Java program.

const (
	// RedissonLock.tryLockInnerAsync.
	scriptLockAcquire = "if ((redis.call('exists', KEYS[1]) == 0) " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	// RedissonLock.unlockInnerAsync.
	scriptLockRelease = "local val = redis.call('get', KEYS[3]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
		"return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"redis.call('set', KEYS[3], 0, 'px', ARGV[5]); " +
		"return 0; " +
		"else " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[4], KEYS[2], ARGV[1]); " +
		"redis.call('set', KEYS[3], 1, 'px', ARGV[5]); " +
		"return 1; " +
		"end; "

	// RedissonBaseLock.renewExpirationAsync (the watchdog).
	scriptRenew = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return 1; " +
		"end; " +
		"return 0;"

	// RedissonLock.forceUnlockAsync.
	scriptLockForceRelease = "if (redis.call('del', KEYS[1]) == 1) then " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1 " +
		"else " +
		"return 0 " +
		"end"
)

// RedissonFairLock.
const (
	// RedissonFairLock.tryLockInnerAsync, the EVAL_LONG variant.
	scriptFairAcquire = "while true do " +
		"local firstThreadId2 = redis.call('lindex', KEYS[2], 0);" +
		"if firstThreadId2 == false then " +
		"break;" +
		"end;" +
		"local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));" +
		"if timeout <= tonumber(ARGV[4]) then " +
		"redis.call('zrem', KEYS[3], firstThreadId2);" +
		"redis.call('lpop', KEYS[2]);" +
		"else " +
		"break;" +
		"end;" +
		"end;" +
		"if (redis.call('exists', KEYS[1]) == 0) " +
		"and ((redis.call('exists', KEYS[2]) == 0) " +
		"or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then " +
		"redis.call('lpop', KEYS[2]);" +
		"redis.call('zrem', KEYS[3], ARGV[2]);" +
		"local keys = redis.call('zrange', KEYS[3], 0, -1);" +
		"for i = 1, #keys, 1 do " +
		"redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), keys[i]);" +
		"end;" +
		"redis.call('hset', KEYS[1], ARGV[2], 1);" +
		"redis.call('pexpire', KEYS[1], ARGV[1]);" +
		"return nil;" +
		"end;" +
		"if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then " +
		"redis.call('hincrby', KEYS[1], ARGV[2],1);" +
		"redis.call('pexpire', KEYS[1], ARGV[1]);" +
		"return nil;" +
		"end;" +
		"local timeout = redis.call('zscore', KEYS[3], ARGV[2]);" +
		"if timeout ~= false then " +
		"return timeout - tonumber(ARGV[3]) - tonumber(ARGV[4]);" +
		"end;" +
		"local lastThreadId = redis.call('lindex', KEYS[2], -1);" +
		"local ttl;" +
		"if lastThreadId ~= false and lastThreadId ~= ARGV[2] then " +
		"ttl = tonumber(redis.call('zscore', KEYS[3], lastThreadId)) - tonumber(ARGV[4]);" +
		"else " +
		"ttl = redis.call('pttl', KEYS[1]);" +
		"end;" +
		"local timeout = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4]);" +
		"if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then " +
		"redis.call('rpush', KEYS[2], ARGV[2]);" +
		"end;" +
		"return ttl;"

	// RedissonFairLock.acquireFailedAsync: a waiter that gives up leaves
	// the queue and hands its wait allowance back to those behind it.
	scriptFairAcquireFailed = "local queue = redis.call('lrange', KEYS[1], 0, -1);" +
		"local i = 1;" +
		"while i <= #queue and queue[i] ~= ARGV[1] do " +
		"i = i + 1;" +
		"end;" +
		"i = i + 1;" +
		"while i <= #queue do " +
		"redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i]);" +
		"i = i + 1;" +
		"end;" +
		"redis.call('zrem', KEYS[2], ARGV[1]);" +
		"redis.call('lrem', KEYS[1], 0, ARGV[1]);"

	// RedissonFairLock.unlockInnerAsync.
	scriptFairRelease = "local val = redis.call('get', KEYS[5]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"while true do " +
		"local firstThreadId2 = redis.call('lindex', KEYS[2], 0);" +
		"if firstThreadId2 == false then " +
		"break;" +
		"end; " +
		"local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));" +
		"if timeout <= tonumber(ARGV[4]) then " +
		"redis.call('zrem', KEYS[3], firstThreadId2); " +
		"redis.call('lpop', KEYS[2]); " +
		"else " +
		"break;" +
		"end; " +
		"end;" +
		"if (redis.call('exists', KEYS[1]) == 0) then " +
		"local nextThreadId = redis.call('lindex', KEYS[2], 0); " +
		"if nextThreadId ~= false then " +
		"redis.call(ARGV[5], KEYS[4] .. ':' .. nextThreadId, ARGV[1]); " +
		"end; " +
		"redis.call('set', KEYS[5], 1, 'px', ARGV[6]); " +
		"return 1; " +
		"end;" +
		"if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then " +
		"return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"redis.call('set', KEYS[5], 0, 'px', ARGV[6]); " +
		"return 0; " +
		"end; " +
		"redis.call('del', KEYS[1]); " +
		"redis.call('set', KEYS[5], 1, 'px', ARGV[6]); " +
		"local nextThreadId = redis.call('lindex', KEYS[2], 0); " +
		"if nextThreadId ~= false then " +
		"redis.call(ARGV[5], KEYS[4] .. ':' .. nextThreadId, ARGV[1]); " +
		"end; " +
		"return 1; "

	// RedissonFairLock.forceUnlockAsync.
	scriptFairForceRelease = "while true do " +
		"local firstThreadId2 = redis.call('lindex', KEYS[2], 0);" +
		"if firstThreadId2 == false then " +
		"break;" +
		"end; " +
		"local timeout = tonumber(redis.call('zscore', KEYS[3], firstThreadId2));" +
		"if timeout <= tonumber(ARGV[2]) then " +
		"redis.call('zrem', KEYS[3], firstThreadId2); " +
		"redis.call('lpop', KEYS[2]); " +
		"else " +
		"break;" +
		"end; " +
		"end;" +
		"if (redis.call('del', KEYS[1]) == 1) then " +
		"local nextThreadId = redis.call('lindex', KEYS[2], 0); " +
		"if nextThreadId ~= false then " +
		"redis.call(ARGV[3], KEYS[4] .. ':' .. nextThreadId, ARGV[1]); " +
		"end; " +
		"return 1; " +
		"end; " +
		"return 0;"
)

// RedissonReadLock and RedissonWriteLock.
const (
	// RedissonReadLock.tryLockInnerAsync.
	scriptReadAcquire = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if (mode == false) then " +
		"redis.call('hset', KEYS[1], 'mode', 'read'); " +
		"redis.call('hset', KEYS[1], ARGV[2], 1); " +
		"redis.call('set', KEYS[2] .. ':1', 1); " +
		"redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then " +
		"local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"local key = KEYS[2] .. ':' .. ind;" +
		"redis.call('set', key, 1); " +
		"redis.call('pexpire', key, ARGV[1]); " +
		"local remainTime = redis.call('pttl', KEYS[1]); " +
		"redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1])); " +
		"return nil; " +
		"end;" +
		"return redis.call('pttl', KEYS[1]);"

	// RedissonReadLock.unlockInnerAsync.
	scriptReadRelease = "local val = redis.call('get', KEYS[5]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if (mode == false) then " +
		"redis.call(ARGV[3], KEYS[2], ARGV[1]); " +
		"redis.call('set', KEYS[5], 1, 'px', ARGV[4]); " +
		"return 1; " +
		"end; " +
		"local lockExists = redis.call('hexists', KEYS[1], ARGV[2]); " +
		"if (lockExists == 0) then " +
		"return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1); " +
		"if (counter == 0) then " +
		"redis.call('hdel', KEYS[1], ARGV[2]); " +
		"end;" +
		"redis.call('del', KEYS[3] .. ':' .. (counter+1)); " +
		"if (redis.call('hlen', KEYS[1]) > 1) then " +
		"local maxRemainTime = -3; " +
		"local keys = redis.call('hkeys', KEYS[1]); " +
		"for n, key in ipairs(keys) do " +
		"counter = tonumber(redis.call('hget', KEYS[1], key)); " +
		"if type(counter) == 'number' then " +
		"for i=counter, 1, -1 do " +
		"local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i); " +
		"maxRemainTime = math.max(remainTime, maxRemainTime);" +
		"end; " +
		"end; " +
		"end; " +
		"if maxRemainTime > 0 then " +
		"redis.call('pexpire', KEYS[1], maxRemainTime); " +
		"redis.call('set', KEYS[5], 0, 'px', ARGV[4]); " +
		"return 0; " +
		"end;" +
		"if mode == 'write' then " +
		"redis.call('set', KEYS[5], 0, 'px', ARGV[4]); " +
		"return 0;" +
		"end; " +
		"end; " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[3], KEYS[2], ARGV[1]); " +
		"redis.call('set', KEYS[5], 1, 'px', ARGV[4]); " +
		"return 1; "

	// RedissonReadLock.renewExpirationAsync.
	scriptReadRenew = "local counter = redis.call('hget', KEYS[1], ARGV[2]); " +
		"if (counter ~= false) then " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"if (redis.call('hlen', KEYS[1]) > 1) then " +
		"local keys = redis.call('hkeys', KEYS[1]); " +
		"for n, key in ipairs(keys) do " +
		"counter = tonumber(redis.call('hget', KEYS[1], key)); " +
		"if type(counter) == 'number' then " +
		"for i=counter, 1, -1 do " +
		"redis.call('pexpire', KEYS[2] .. ':' .. key .. ':rwlock_timeout:' .. i, ARGV[1]); " +
		"end; " +
		"end; " +
		"end; " +
		"end; " +
		"return 1; " +
		"end; " +
		"return 0;"

	// RedissonReadLock.forceUnlockAsync.
	scriptReadForceRelease = "if (redis.call('hget', KEYS[1], 'mode') == 'read') then " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1; " +
		"end; " +
		"return 0; "

	// RedissonReadLock.isLocked.
	scriptReadIsLocked = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if (mode == 'read') or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then " +
		"return 1; " +
		"end; " +
		"return 0; "

	// RedissonWriteLock.tryLockInnerAsync.
	scriptWriteAcquire = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if (mode == false) then " +
		"redis.call('hset', KEYS[1], 'mode', 'write'); " +
		"redis.call('hset', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"if (mode == 'write') then " +
		"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"local currentExpire = redis.call('pttl', KEYS[1]); " +
		"redis.call('pexpire', KEYS[1], currentExpire + ARGV[1]); " +
		"return nil; " +
		"end; " +
		"end;" +
		"return redis.call('pttl', KEYS[1]);"

	// RedissonWriteLock.unlockInnerAsync.
	scriptWriteRelease = "local val = redis.call('get', KEYS[3]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if (mode == false) then " +
		"redis.call(ARGV[4], KEYS[2], ARGV[1]); " +
		"redis.call('set', KEYS[3], 1, 'px', ARGV[5]); " +
		"return 1; " +
		"end;" +
		"if (mode == 'write') then " +
		"local lockExists = redis.call('hexists', KEYS[1], ARGV[3]); " +
		"if (lockExists == 0) then " +
		"return nil;" +
		"else " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); " +
		"if (counter > 0) then " +
		"redis.call('pexpire', KEYS[1], ARGV[2]); " +
		"redis.call('set', KEYS[3], 0, 'px', ARGV[5]); " +
		"return 0; " +
		"else " +
		"redis.call('hdel', KEYS[1], ARGV[3]); " +
		"if (redis.call('hlen', KEYS[1]) == 1) then " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[4], KEYS[2], ARGV[1]); " +
		"else " +
		"redis.call('hset', KEYS[1], 'mode', 'read'); " +
		"end; " +
		"redis.call('set', KEYS[3], 1, 'px', ARGV[5]); " +
		"return 1; " +
		"end; " +
		"end; " +
		"end; " +
		"return nil;"

	// RedissonWriteLock.forceUnlockAsync.
	scriptWriteForceRelease = "if (redis.call('hget', KEYS[1], 'mode') == 'write') then " +
		"redis.call('del', KEYS[1]); " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1; " +
		"end; " +
		"return 0; "
)

// RedissonSpinLock and RedissonFencedLock.
const (
	// RedissonSpinLock.tryLockInnerAsync.
	scriptSpinAcquire = "if (redis.call('exists', KEYS[1]) == 0) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	// RedissonSpinLock.unlockInnerAsync.
	scriptSpinRelease = "local val = redis.call('get', KEYS[2]); " +
		"if val ~= false then " +
		"return tonumber(val);" +
		"end; " +
		"if (redis.call('hexists', KEYS[1], ARGV[2]) == 0) then " +
		"return nil;" +
		"end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1); " +
		"if (counter > 0) then " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"redis.call('set', KEYS[2], 0, 'px', ARGV[3]); " +
		"return 0; " +
		"else " +
		"redis.call('del', KEYS[1]); " +
		"redis.call('set', KEYS[2], 1, 'px', ARGV[3]); " +
		"return 1; " +
		"end; "

	// RedissonSpinLock.forceUnlockAsync.
	scriptSpinForceRelease = "if (redis.call('del', KEYS[1]) == 1) then " +
		"return 1 " +
		"else " +
		"return 0 " +
		"end"

	// RedissonFencedLock.tryLockInnerAsync(leaseTime, unit, threadId): the
	// acquire that answers {-1, token} or {pttl, -1}.
	scriptFencedAcquire = "if (redis.call('exists', KEYS[1]) == 0 " +
		"or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then " +
		"local token = redis.call('incr', KEYS[2]);" +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return {-1, token}; " +
		"end; " +
		"return {redis.call('pttl', KEYS[1]), -1};"
)

// RedissonSemaphore, RedissonPermitExpirableSemaphore and
// RedissonCountDownLatch.
const (
	// RedissonSemaphore.tryAcquireAsync0.
	scriptSemAcquire = "local value = redis.call('get', KEYS[1]); " +
		"if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then " +
		"local val = redis.call('decrby', KEYS[1], ARGV[1]); " +
		"return 1; " +
		"end; " +
		"return 0;"

	// RedissonSemaphore.releaseAsync.
	scriptSemRelease = "local value = redis.call('incrby', KEYS[1], ARGV[1]); " +
		"redis.call(ARGV[2], KEYS[2], value); "

	// RedissonSemaphore.trySetPermitsAsync.
	scriptSemTrySetPermits = "local value = redis.call('get', KEYS[1]); " +
		"if (value == false) then " +
		"redis.call('set', KEYS[1], ARGV[1]); " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1;" +
		"end;" +
		"return 0;"

	// RedissonSemaphore.addPermitsAsync.
	scriptSemAddPermits = "local value = redis.call('get', KEYS[1]); " +
		"if (value == false) then " +
		"value = 0;" +
		"end;" +
		"redis.call('set', KEYS[1], value + ARGV[1]); " +
		"redis.call(ARGV[2], KEYS[2], value + ARGV[1]); "

	// RedissonSemaphore.drainPermitsAsync.
	scriptSemDrain = "local value = redis.call('get', KEYS[1]); " +
		"if (value == false) then " +
		"return 0; " +
		"end; " +
		"redis.call('set', KEYS[1], 0); " +
		"return value;"

	// RedissonPermitExpirableSemaphore.tryAcquireAsync(ids, timeoutDate).
	scriptPESAcquire = "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1]); " +
		"if #expiredIds > 0 then " +
		"redis.call('zrem', KEYS[2], unpack(expiredIds)); " +
		"local value = redis.call('incrby', KEYS[1], #expiredIds); " +
		"if tonumber(value) > 0 then " +
		"redis.call(ARGV[5], KEYS[3], value); " +
		"end;" +
		"end; " +
		"local value = redis.call('get', KEYS[1]); " +
		"if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then " +
		"redis.call('decrby', KEYS[1], ARGV[1]); " +
		"for i = 6, #ARGV, 1 do " +
		"redis.call('zadd', KEYS[2], ARGV[2], ARGV[i]); " +
		"end; " +
		"local ttl = redis.call('pttl', KEYS[1]); " +
		"if ttl > 0 then " +
		"redis.call('pexpire', KEYS[2], ttl); " +
		"end; " +
		"return 'OK'; " +
		"end; " +
		"local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES'); " +
		"if v[1] ~= nil and v[2] ~= ARGV[4] then " +
		"return ':' .. tostring(v[2]); " +
		"end " +
		"return nil;"

	// RedissonPermitExpirableSemaphore.tryReleaseAsync(permitId).
	scriptPESRelease = "local expire = redis.call('zscore', KEYS[3], ARGV[1]);" +
		"local removed = redis.call('zrem', KEYS[3], ARGV[1]);" +
		"if tonumber(removed) ~= 1 then " +
		"return 0;" +
		"end;" +
		"local value = redis.call('incrby', KEYS[1], ARGV[2]); " +
		"redis.call(ARGV[4], KEYS[2], value); " +
		"if tonumber(expire) <= tonumber(ARGV[3]) then " +
		"return 0;" +
		"end;" +
		"return 1;"

	// RedissonPermitExpirableSemaphore.trySetPermitsAsync.
	scriptPESTrySetPermits = "local value = redis.call('get', KEYS[1]); " +
		"if (value == false) then " +
		"redis.call('set', KEYS[1], ARGV[1]); " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1;" +
		"end;" +
		"return 0;"

	// RedissonPermitExpirableSemaphore.addPermitsAsync.
	scriptPESAddPermits = "local value = redis.call('get', KEYS[1]); " +
		"if (value == false) then " +
		"value = 0;" +
		"end;" +
		"redis.call('set', KEYS[1], tonumber(value) + tonumber(ARGV[1])); " +
		"if tonumber(ARGV[1]) > 0 then " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"end;"

	// RedissonPermitExpirableSemaphore.availablePermitsAsync.
	scriptPESAvailable = "local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); " +
		"if #expiredIds > 0 then " +
		"redis.call('zrem', KEYS[2], unpack(expiredIds)); " +
		"local value = redis.call('incrby', KEYS[1], #expiredIds); " +
		"if tonumber(value) > 0 then " +
		"redis.call(ARGV[2], KEYS[3], value); " +
		"end;" +
		"return value; " +
		"end; " +
		"local ret = redis.call('get', KEYS[1]); " +
		"return ret == false and 0 or ret;"

	// RedissonCountDownLatch.trySetCountAsync.
	scriptLatchTrySetCount = "if redis.call('exists', KEYS[1]) == 0 then " +
		"redis.call('set', KEYS[1], ARGV[2]); " +
		"redis.call(ARGV[3], KEYS[2], ARGV[1]); " +
		"return 1 " +
		"else " +
		"return 0 " +
		"end"

	// RedissonCountDownLatch.countDownAsync.
	scriptLatchCountDown = "local v = redis.call('decr', KEYS[1]);" +
		"if v <= 0 then redis.call('del', KEYS[1]) end;" +
		"if v == 0 then redis.call(ARGV[2], KEYS[2], ARGV[1]) end;"

	// RedissonCountDownLatch.deleteAsync.
	scriptLatchDelete = "if redis.call('del', KEYS[1]) == 1 then " +
		"redis.call(ARGV[2], KEYS[2], ARGV[1]); " +
		"return 1 " +
		"else " +
		"return 0 " +
		"end"
)
