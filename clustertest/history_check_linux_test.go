package clustertest

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestHistoryCheckers feeds the history checkers hand-made histories, so
// that they are known to refuse what they must (no build needed).
func TestHistoryCheckers(t *testing.T) {
	const lease = 1000
	op := func(client int, kind int, key, who string, call, ret int64, out hOutput) porcupine.Operation {
		in := hInput{op: kind, key: key, owner: who, lease: lease, call: call, ret: ret}
		r := ret * 1e6
		if ret == never {
			r = never
		}
		return porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call * 1e6, Return: r}
	}
	got := hOutput{held: true}
	cases := []struct {
		name   string
		ops    []porcupine.Operation
		linear bool
		excl   bool // mutual exclusion holds
	}{
		{"sequential handover", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(1, opRelease, "k", "a", 20, 30, hOutput{n: 1}),
			op(2, opAcquire, "k", "b", 40, 50, got),
		}, true, true},
		{"two holders", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(2, opAcquire, "k", "b", 40, 50, got),
		}, false, false},
		{"after the lease", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(2, opAcquire, "k", "b", 1100, 1110, got),
		}, true, true},
		{"refused with the lease left", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(2, opAcquire, "k", "b", 500, 510, hOutput{pttl: 495}),
		}, true, true},
		{"refused with a lease that grew", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(2, opAcquire, "k", "b", 500, 510, hOutput{pttl: 900}),
		}, false, true},
		{"refused after the lease", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(2, opAcquire, "k", "b", 1100, 1110, hOutput{pttl: 5}),
		}, false, true},
		{"lost lock", []porcupine.Operation{
			op(1, opSpinAcquire, "s", "a", 0, 10, got),
			op(1, opSpinRelease, "s", "a", 100, 110, hOutput{n: 0}),
		}, false, false},
		{"stale read", []porcupine.Operation{
			op(1, opSpinAcquire, "s", "a", 0, 10, got),
			op(1, opSpinRelease, "s", "a", 20, 30, hOutput{n: 1}),
			op(2, opGet, "s", "", 40, 50, hOutput{val: "a"}),
		}, false, true},
		{"unknown acquire may have taken effect", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, never, hOutput{unknown: true}),
			op(2, opAcquire, "k", "b", 40, 50, hOutput{pttl: 960}),
		}, true, true},
		{"unknown acquire may not have", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, never, hOutput{unknown: true}),
			op(2, opAcquire, "k", "b", 40, 50, got),
		}, true, true},
		{"unknown release, settled, that did nothing", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(1, opRelease, "k", "a", 20, 30, hOutput{unknown: true}),
			op(2, opAcquire, "k", "b", 40, 50, hOutput{pttl: 955}),
		}, true, true},
		{"unknown release, settled, that took effect", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(1, opRelease, "k", "a", 20, 30, hOutput{unknown: true}),
			op(2, opAcquire, "k", "b", 40, 50, got),
		}, true, true},
		{"reentry", []porcupine.Operation{
			op(1, opAcquire, "k", "a", 0, 10, got),
			op(1, opAcquire, "k", "a", 20, 30, got),
			op(1, opRelease, "k", "a", 40, 50, hOutput{n: 0}),
			op(1, opRelease, "k", "a", 60, 70, hOutput{n: 1}),
		}, true, true},
	}
	for _, tc := range cases {
		res := porcupine.CheckOperations(historyModel(), tc.ops)
		if res != tc.linear {
			t.Errorf("%s: linearizable %v, want %v", tc.name, res, tc.linear)
		}
		g, v, l, _ := checkExclusion(tc.ops)
		if (v+l == 0) != tc.excl {
			t.Errorf("%s: %d grants, %d violations, %d lost; want exclusion %v", tc.name, g, v, l, tc.excl)
		}
	}
}
