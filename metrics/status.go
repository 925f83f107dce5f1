package metrics

import (
	"html/template"
	"net/http"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/store"
)

// The status page (GET / on the metrics port): this node, the members
// with their progress and lag, and the locks held, read-only. The lock
// list is bounded: it classifies at most statusScanKeys keys and shows at
// most statusMaxLocks locks (the page says when it stopped early); the
// counts above it are the lock sampler's, over the whole keyspace.

const (
	statusScanKeys = 2000
	statusMaxLocks = 200
)

type statusLock struct {
	DB int
	engine.LockInfo
}

type statusPage struct {
	Ready      bool
	Why        string
	Answered   bool // the command goroutine answered
	Clients    int
	UsedMemory uint64
	Cluster    *statusCluster
	Sampled    bool
	Held       map[engine.LockType]int
	Waiters    int
	Locks      []statusLock
	Truncated  bool
	LockTypes  []engine.LockType
	Now        string
}

type statusCluster struct {
	ClusterID, State, LeaderID string
	HasLeader                  bool
	Term, CommitIndex, Applied uint64
	Nodes                      []engine.Node
}

// heldLocks lists up to statusMaxLocks held or waited-for locks among the
// first statusScanKeys keys (command goroutine).
func heldLocks(e *engine.Engine) (out []statusLock, truncated bool) {
	now := e.NowMs()
	seen := 0
	for i, db := range e.DBs {
		cursor := uint64(0)
		for {
			var keys []string
			cursor = db.Scan(cursor, func(key string, _ *store.Entry) { keys = append(keys, key) })
			for _, k := range keys {
				seen++
				if info, ok := engine.ClassifyLock(db, k, now); ok && (info.Held() || len(info.Waiters) > 0) {
					if len(out) == statusMaxLocks {
						return out, true
					}
					out = append(out, statusLock{i, info})
				}
			}
			if seen >= statusScanKeys {
				return out, cursor != 0 || i < len(e.DBs)-1
			}
			if cursor == 0 {
				break
			}
		}
	}
	return out, false
}

var statusTmpl = template.Must(template.New("status").Funcs(template.FuncMap{
	"ms": func(v int64) string {
		if v < 0 {
			return "-"
		}
		return (time.Duration(v) * time.Millisecond).String()
	},
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>lockkv status</title>
<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#eee}.bad{color:#b00}.ok{color:#070}</style>
</head><body>
<h1>lockkv</h1>
<p id="ready" class="{{if .Ready}}ok{{else}}bad{{end}}">{{if .Ready}}ready{{else}}not ready{{end}}: {{.Why}}</p>
{{if .Answered}}<p>clients: {{.Clients}} · memory: {{.UsedMemory}} bytes · as of {{.Now}}</p>{{end}}
{{with .Cluster}}
<h2>Cluster</h2>
<p>cluster <span id="cluster-id">{{.ClusterID}}</span>, this node is <b id="state">{{.State}}</b>, term {{.Term}}, leader <b id="leader">{{if .HasLeader}}{{.LeaderID}}{{else}}none{{end}}</b>;
commit index {{.CommitIndex}}, applied {{.Applied}}.</p>
<table id="members"><tr><th>id</th><th>raft address</th><th>client address</th><th>voter</th><th>leader</th><th>match index</th><th>applied index</th><th>lag</th><th>last contact</th></tr>
{{range .Nodes}}<tr><td>{{.ID}}{{if .Self}} (this node){{end}}</td><td>{{.RaftAddr}}</td><td>{{.ClientAddr}}</td><td>{{.Voter}}</td><td>{{.Leader}}</td>
{{if .Progress}}<td>{{.MatchIndex}}</td><td>{{.AppliedIndex}}</td><td>{{ms .ReplLagMs}}</td>{{else}}<td colspan="3">known to the leader only</td>{{end}}<td>{{if .Self}}-{{else}}{{ms .LagMs}}{{end}}</td></tr>
{{end}}</table>
{{else}}<p>standalone server</p>{{end}}
<h2>Locks</h2>
{{if .Sampled}}<p id="lock-counts">held (whole keyspace, sampled): {{range .LockTypes}}{{.}} {{index $.Held .}} · {{end}}waiters {{.Waiters}}</p>{{else}}<p>the lock sampler has not completed a pass yet</p>{{end}}
<table id="locks"><tr><th>db</th><th>name</th><th>type</th><th>holders (id × count)</th><th>lease left</th><th>waiters</th></tr>
{{range .Locks}}<tr><td>{{.DB}}</td><td>{{.Key}}</td><td>{{.Type}}{{if .Mode}} ({{.Mode}}){{end}}</td><td>{{range .Holders}}{{.ID}} × {{.Count}}{{if ge .LeaseMs 0}} ({{ms .LeaseMs}}){{end}}<br>{{end}}</td><td>{{ms .LeaseMs}}</td><td>{{range .Waiters}}{{.ID}} ({{ms .TimeoutMs}})<br>{{end}}</td></tr>
{{end}}</table>
{{if .Truncated}}<p>(first {{len .Locks}} locks among the first keys only; use <code>lockkv locks</code> for all)</p>{{end}}
</body></html>
`))

func (s *port) serveStatus(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only", http.StatusMethodNotAllowed)
		return
	}
	page := statusPage{LockTypes: engine.LockTypes, Now: time.Now().UTC().Format(time.RFC3339)}
	page.Ready, page.Why = s.readiness()
	if o, ok := s.observeWith(observeTimeout, true); ok {
		page.Answered = true
		page.Clients, page.UsedMemory = o.clients, o.usedMemory
		page.Sampled, page.Held, page.Waiters = o.locks.At != 0, o.locks.Held, o.locks.Waiters
		page.Locks, page.Truncated = o.heldLocks, o.truncated
		if c := o.cluster; c != nil {
			page.Cluster = &statusCluster{ClusterID: c.status.ClusterID, State: c.status.State, LeaderID: c.leader.ID,
				HasLeader: c.hasLeader, Term: c.status.Term, CommitIndex: c.status.CommitIndex, Applied: c.status.AppliedIndex, Nodes: c.nodes}
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := statusTmpl.Execute(w, page); err != nil {
		s.h.Logger.Warn("status page", "err", err)
	}
}
