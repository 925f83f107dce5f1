// ioredis and redlock against the Redis-protocol server at argv[2]
// (host:port): redlock's mutual exclusion, extend and unlock; a
// Redisson-style reentrant lock defined with ioredis's defineCommand
// (EVALSHA, EVAL on NOSCRIPT); the unlock message reaching a subscriber.
// Prints "ok" and exits 0, or prints the failure and exits 1.
import Redis from "ioredis";
import Redlock from "redlock";

const [host, port] = process.argv[2].split(":");
const opts = { host, port: Number(port), maxRetriesPerRequest: 1, enableOfflineQueue: true };

function check(cond, what) {
  if (!cond) throw new Error(what);
}

async function redlockExclusion(client) {
  const redlock = new Redlock([client], { retryCount: 2000, retryDelay: 2, retryJitter: 2, driftFactor: 0.01 });
  let holders = 0, maxHolders = 0, sections = 0;
  const worker = async () => {
    for (let i = 0; i < 10; i++) {
      const lock = await redlock.lock("locks:counter", 10000);
      holders++;
      maxHolders = Math.max(maxHolders, holders);
      await new Promise((r) => setTimeout(r, 1));
      holders--;
      sections++;
      await lock.unlock();
    }
  };
  await Promise.all(Array.from({ length: 5 }, worker));
  check(maxHolders === 1 && sections === 50, `redlock: ${maxHolders} holders at once, ${sections} of 50 sections`);

  const lock = await redlock.lock("locks:lease", 5000);
  const pttl = await client.pttl("locks:lease");
  check(pttl > 4000 && pttl <= 5000, `redlock: PTTL ${pttl} after lock(5000)`);
  await lock.extend(20000);
  const pttl2 = await client.pttl("locks:lease");
  check(pttl2 > 19000 && pttl2 <= 20000, `redlock: PTTL ${pttl2} after extend(20000)`);
  const other = new Redlock([client], { retryCount: 0 });
  let refused = false;
  try {
    await other.lock("locks:lease", 1000);
  } catch (e) {
    refused = e instanceof Redlock.LockError;
  }
  check(refused, "redlock: a second owner got a held lock");
  await lock.unlock();
  check((await client.exists("locks:lease")) === 0, "redlock: unlock left the key");
}

const acquire = `
if (redis.call('exists', KEYS[1]) == 0) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1);
  redis.call('pexpire', KEYS[1], ARGV[1]);
  return nil;
end;
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1);
  redis.call('pexpire', KEYS[1], ARGV[1]);
  return nil;
end;
return redis.call('pttl', KEYS[1]);`;

const release = `
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
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
return nil;`;

async function reentrant(client, sub) {
  await client.script("flush"); // the first call must fall back to EVAL
  client.defineCommand("lockAcquire", { numberOfKeys: 1, lua: acquire });
  client.defineCommand("lockRelease", { numberOfKeys: 2, lua: release });
  const name = "myLock", channel = "redisson_lock__channel:{myLock}";
  const messages = [];
  await sub.subscribe(channel);
  sub.on("message", (ch, msg) => messages.push([ch, msg]));

  check((await client.lockAcquire(name, 30000, "uuid-a:1")) === null, "acquire: not granted");
  check((await client.lockAcquire(name, 30000, "uuid-a:1")) === null, "re-entry: not granted");
  const wait = await client.lockAcquire(name, 30000, "uuid-b:7");
  check(typeof wait === "number" && wait > 29000 && wait <= 30000, `other owner: PTTL ${wait}`);
  check((await client.hget(name, "uuid-a:1")) === "2", "re-entry count is not 2");
  check((await client.lockRelease(name, channel, 0, 30000, "uuid-b:7")) === null, "a stranger released the lock");
  check((await client.lockRelease(name, channel, 0, 30000, "uuid-a:1")) === 0, "first release: not 0");
  check((await client.lockRelease(name, channel, 0, 30000, "uuid-a:1")) === 1, "last release: not 1");
  for (let i = 0; i < 500 && messages.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  check(messages.length === 1 && messages[0][0] === channel && messages[0][1] === "0", `unlock messages ${JSON.stringify(messages)}`);
  check((await client.lockAcquire(name, 30000, "uuid-b:7")) === null, "the waiter did not get the released lock");
}

const client = new Redis(opts);
const sub = new Redis(opts);
try {
  await redlockExclusion(client);
  await reentrant(client, sub);
  console.log("ok");
} catch (e) {
  console.log("FAIL:", e && e.stack ? e.stack : e);
  process.exitCode = 1;
} finally {
  client.disconnect();
  sub.disconnect();
}
