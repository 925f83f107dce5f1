package clustertest

import (
	"fmt"
	"math"

	"github.com/anishathalye/porcupine"
)

// The model of the randomized history: a keyspace of locks with leases,
// checked per key. A key is either a reentrant lock (a hash of owner to
// hold count, the Acquire/Release scripts) or a spin lock (a string holding
// its owner, SET NX PX, compare-and-delete, GET).
//
// Leases make the model timed. Every op carries the client's call and
// return times (ms, same clock as the servers': one machine), and the
// server's "now" for it lies between them (the leader stamps an entry with
// its clock while the client waits; an apply never goes back in time). The
// state keeps a lower bound on the last op's now and bounds on the lock's
// deadline, so an op may see the lock alive or expired only when its time
// window allows. Bounds are kept loose (never the exact time), so the
// model may accept a history it should refuse but never refuses a correct
// one.

const (
	opAcquire     = iota // reentrant Acquire script
	opRelease            // reentrant Release script
	opSpinAcquire        // SET key owner NX PX lease
	opSpinRelease        // SpinRelease (compare-and-delete)
	opGet                // GET of a spin lock
)

// slack is the rounding allowance of millisecond times (ms).
const slack = 2

// never is the return time of an op whose outcome is unknown.
const never = math.MaxInt64

type hInput struct {
	op        int
	key       string
	owner     string
	lease     int64 // ms
	call, ret int64 // Unix ms; ret is never for unknown outcomes
}

type hOutput struct {
	unknown bool   // the op failed or timed out: it may or may not have taken effect
	held    bool   // acquires: the lock was granted
	pttl    int64  // Acquire refused: the remaining lease it answered
	n       int64  // releases: -1 (nil), 0, 1
	val     string // GET: the value, "" for nil
}

type hState struct {
	owner    string // "" when free
	count    int64
	dlo, dhi int64 // the deadline lies in [dlo, dhi] while owned
	tlo      int64 // the last op's now is at least this
}

func addSat(a, b int64) int64 {
	if a > never-b {
		return never
	}
	return a + b
}

// historyStep returns every state the key can be in after in answered out.
func historyStep(s hState, in hInput, out hOutput) []hState {
	lo := max(in.call, s.tlo)
	if lo > in.ret {
		return nil
	}
	type view struct {
		s hState
		t int64 // earliest now for the op in this view
	}
	var views []view
	if s.owner == "" {
		views = append(views, view{s, lo})
	} else {
		if lo <= addSat(s.dhi, slack) { // still alive
			views = append(views, view{s, lo})
		}
		if in.ret >= s.dlo-slack { // may have expired
			views = append(views, view{hState{}, min(max(lo, s.dlo), in.ret)})
		}
	}
	var next []hState
	if out.unknown {
		// It may never have taken effect (boundUnknowns gives such ops a
		// return time, so the end of the history is not the only place
		// where it can do nothing).
		next = append(next, s)
	}
	for _, v := range views {
		st, t := v.s, v.t
		st.tlo = t
		grant := func() hState {
			g := st
			if g.owner != in.owner {
				g.owner, g.count = in.owner, 0
			}
			g.count++
			g.dlo, g.dhi = t+in.lease, addSat(in.ret, in.lease)
			return g
		}
		switch in.op {
		case opAcquire:
			if st.owner == "" || st.owner == in.owner {
				if out.unknown || out.held {
					next = append(next, grant())
				}
			} else if out.unknown || (!out.held && out.pttl >= st.dlo-in.ret-slack && out.pttl <= addSat(st.dhi, slack)-t) {
				next = append(next, st)
			}
		case opSpinAcquire:
			if st.owner == "" {
				if out.unknown || out.held {
					next = append(next, grant())
				}
			} else if out.unknown || !out.held {
				next = append(next, st)
			}
		case opRelease:
			if st.owner == in.owner {
				r := st
				r.count--
				res := int64(0)
				if r.count == 0 {
					r = hState{tlo: t}
					res = 1
				} else {
					r.dlo, r.dhi = t+in.lease, addSat(in.ret, in.lease)
				}
				if out.unknown || out.n == res {
					next = append(next, r)
				}
			} else if out.unknown || out.n == -1 {
				next = append(next, st)
			}
		case opSpinRelease:
			if st.owner == in.owner {
				if out.unknown || out.n == 1 {
					next = append(next, hState{tlo: t})
				}
			} else if out.unknown || out.n == 0 {
				next = append(next, st)
			}
		case opGet:
			if out.unknown || out.val == st.owner {
				next = append(next, st)
			}
		}
	}
	return next
}

func describeOp(in hInput, out hOutput) string {
	name := [...]string{"acquire", "release", "setnx", "cad", "get"}[in.op]
	res := ""
	switch {
	case out.unknown:
		res = "?"
	case in.op == opAcquire || in.op == opSpinAcquire:
		res = fmt.Sprintf("held=%v pttl=%d", out.held, out.pttl)
	case in.op == opGet:
		res = fmt.Sprintf("%q", out.val)
	default:
		res = fmt.Sprint(out.n)
	}
	return fmt.Sprintf("%s(%s, %s) -> %s", name, in.key, in.owner, res)
}

// historyModel is the porcupine model, partitioned by key.
func historyModel() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			by := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range h {
				k := op.Input.(hInput).key
				if _, ok := by[k]; !ok {
					keys = append(keys, k)
				}
				by[k] = append(by[k], op)
			}
			var ps [][]porcupine.Operation
			for _, k := range keys {
				ps = append(ps, by[k])
			}
			return ps
		},
		Init: func() []interface{} { return []interface{}{hState{}} },
		Step: func(state, input, output interface{}) []interface{} {
			var out []interface{}
			for _, s := range historyStep(state.(hState), input.(hInput), output.(hOutput)) {
				out = append(out, s)
			}
			return out
		},
		DescribeOperation: func(in, out interface{}) string { return describeOp(in.(hInput), out.(hOutput)) },
		DescribeState: func(s interface{}) string {
			st := s.(hState)
			return fmt.Sprintf("%s x%d until [%d,%d] t>=%d", st.owner, st.count, st.dlo, st.dhi, st.tlo)
		},
	}
	return nm.ToModel()
}
