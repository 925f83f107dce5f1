package lock

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"
)

// TestScriptDigests: every script is byte for byte Redisson's, so EVALSHA
// of either side finds the other's.
func TestScriptDigests(t *testing.T) {
	scripts := map[string]string{
		"scriptLockAcquire": scriptLockAcquire, "scriptLockRelease": scriptLockRelease,
		"scriptRenew": scriptRenew, "scriptLockForceRelease": scriptLockForceRelease,
		"scriptFairAcquire": scriptFairAcquire, "scriptFairAcquireFailed": scriptFairAcquireFailed,
		"scriptFairRelease": scriptFairRelease, "scriptFairForceRelease": scriptFairForceRelease,
		"scriptReadAcquire": scriptReadAcquire, "scriptReadRelease": scriptReadRelease,
		"scriptReadRenew": scriptReadRenew, "scriptReadForceRelease": scriptReadForceRelease,
		"scriptReadIsLocked": scriptReadIsLocked, "scriptWriteAcquire": scriptWriteAcquire,
		"scriptWriteRelease": scriptWriteRelease, "scriptWriteForceRelease": scriptWriteForceRelease,
		"scriptSpinAcquire": scriptSpinAcquire, "scriptSpinRelease": scriptSpinRelease,
		"scriptSpinForceRelease": scriptSpinForceRelease, "scriptFencedAcquire": scriptFencedAcquire,
		"scriptSemAcquire": scriptSemAcquire, "scriptSemRelease": scriptSemRelease,
		"scriptSemTrySetPermits": scriptSemTrySetPermits, "scriptSemAddPermits": scriptSemAddPermits,
		"scriptSemDrain": scriptSemDrain, "scriptPESAcquire": scriptPESAcquire,
		"scriptPESRelease": scriptPESRelease, "scriptPESTrySetPermits": scriptPESTrySetPermits,
		"scriptPESAddPermits": scriptPESAddPermits, "scriptPESAvailable": scriptPESAvailable,
		"scriptLatchTrySetCount": scriptLatchTrySetCount, "scriptLatchCountDown": scriptLatchCountDown,
		"scriptLatchDelete": scriptLatchDelete,
	}
	if len(scripts) != len(redissonDigests) {
		t.Fatalf("%d scripts, %d digests", len(scripts), len(redissonDigests))
	}
	for name, src := range scripts {
		sum := sha1.Sum([]byte(src))
		if got, want := hex.EncodeToString(sum[:]), redissonDigests[name]; got != want {
			t.Errorf("%s: SHA-1 %s, Redisson's is %s", name, got, want)
		}
	}
}
