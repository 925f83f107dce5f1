package clustertest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lockscripts"
)

// The lock scripts as clients run them: redis.Script tries EVALSHA and
// falls back to EVAL on NOSCRIPT, as Redisson does.
var (
	acquireScript     = redis.NewScript(lockscripts.Acquire)
	releaseScript     = redis.NewScript(lockscripts.Release)
	fairAcquireScript = redis.NewScript(lockscripts.FairAcquire)
	fairReleaseScript = redis.NewScript(lockscripts.FairRelease)
	spinReleaseScript = redis.NewScript(lockscripts.SpinRelease)
)

// Redisson's names around a lock.
func lockChannel(name string) string { return "redisson_lock__channel:{" + name + "}" }
func fairQueue(name string) string   { return "redisson_lock_queue:{" + name + "}" }
func fairTimeouts(name string) string {
	return "redisson_lock_timeout:{" + name + "}"
}

// unlockMessage is Redisson's LockPubSub.UNLOCK_MESSAGE.
const unlockMessage = "0"

// owner is a Redisson-style owner name: client UUID and thread ID.
func owner(client, thread int) string {
	return fmt.Sprintf("8743c9c0-0795-4907-87fd-%012x:%d", client, thread)
}

func msNow() int64 { return time.Now().UnixMilli() }

// acquire runs the reentrant lock's acquire script: held reports a nil
// reply, else pttl is the remaining lease the lock's holder has.
func acquire(ctx context.Context, c redis.Scripter, name, who string, lease time.Duration) (held bool, pttl int64, err error) {
	v, err := acquireScript.Run(ctx, c, []string{name}, lease.Milliseconds(), who).Result()
	if err == redis.Nil {
		return true, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return false, 0, fmt.Errorf("acquire answered %#v", v)
	}
	return false, n, nil
}

// release runs the reentrant lock's release script: -1 for a nil reply
// (not the owner), 0 (still held), 1 (released and published).
func release(ctx context.Context, c redis.Scripter, name, who string, lease time.Duration) (int64, error) {
	v, err := releaseScript.Run(ctx, c, []string{name, lockChannel(name)}, unlockMessage, lease.Milliseconds(), who).Result()
	if err == redis.Nil {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("release answered %#v", v)
	}
	return n, nil
}

// fairAcquire runs the fair lock's acquire script: held, or the wait the
// script hands out.
func fairAcquire(ctx context.Context, c redis.Scripter, name, who string, lease, wait time.Duration) (held bool, w int64, err error) {
	v, err := fairAcquireScript.Run(ctx, c, []string{name, fairQueue(name), fairTimeouts(name)},
		lease.Milliseconds(), who, wait.Milliseconds(), msNow()).Result()
	if err == redis.Nil {
		return true, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return false, 0, fmt.Errorf("fair acquire answered %#v", v)
	}
	return false, n, nil
}

// fairRelease runs the fair lock's release script (-1 for nil).
func fairRelease(ctx context.Context, c redis.Scripter, name, who string, lease time.Duration) (int64, error) {
	v, err := fairReleaseScript.Run(ctx, c, []string{name, fairQueue(name), fairTimeouts(name), lockChannel(name)},
		unlockMessage, lease.Milliseconds(), who, msNow()).Result()
	if err == redis.Nil {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("fair release answered %#v", v)
	}
	return n, nil
}

// subscriber collects the messages a node delivers on some channels.
type subscriber struct {
	ps   *redis.PubSub
	mu   sync.Mutex
	msgs map[string][]string
}

// subscribe subscribes to channels on node i and waits for the
// confirmations.
func (c *cluster) subscribe(t testing.TB, i int, channels ...string) *subscriber {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ps := c.client(i).Subscribe(ctx)
	if err := ps.Subscribe(ctx, channels...); err != nil {
		t.Fatal(err)
	}
	for range channels {
		v, err := ps.Receive(ctx)
		if err != nil {
			t.Fatalf("subscribe on %s: %v", c.nodes[i].id, err)
		}
		if _, ok := v.(*redis.Subscription); !ok {
			t.Fatalf("subscribe on %s: got %#v", c.nodes[i].id, v)
		}
	}
	s := &subscriber{ps: ps, msgs: map[string][]string{}}
	go func() {
		for m := range ps.Channel() {
			s.mu.Lock()
			s.msgs[m.Channel] = append(s.msgs[m.Channel], m.Payload)
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() { ps.Close() })
	return s
}

func (s *subscriber) got(channel string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs[channel]...)
}

// waitMessage waits until s has received payload on channel.
func (s *subscriber) waitMessage(t testing.TB, d time.Duration, channel, payload string) {
	t.Helper()
	testutil.Eventually(t, d, func() error {
		for _, p := range s.got(channel) {
			if p == payload {
				return nil
			}
		}
		return fmt.Errorf("on %s received %q", channel, s.got(channel))
	})
}
