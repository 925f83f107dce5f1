package lockkv

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
)

// commandList renders the command table as README lists it: every command
// (those that exist only on a cluster node, or the others), with its
// subcommands in table order.
func commandList(clusterOnly bool) (string, int) {
	var items []string
	for _, s := range engine.All() {
		if s.ClusterOnly != clusterOnly {
			continue
		}
		item := strings.ToUpper(s.Name)
		if len(s.Sub) > 0 {
			subs := make([]string, len(s.Sub))
			for i, sub := range s.Sub {
				subs[i] = strings.ToUpper(sub.Name)
			}
			item += " (" + strings.Join(subs, " ") + ")"
		}
		items = append(items, item)
	}
	return strings.Join(items, ", "), len(items)
}

// TestREADMECommandList keeps README's command list the command table's.
func TestREADMECommandList(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, clusterOnly := range []bool{false, true} {
		list, n := commandList(clusterOnly)
		if !strings.Contains(readme, "\n"+list+"\n") {
			t.Errorf("README.md lacks the current list of %d commands (cluster only: %v); it should read:\n%s", n, clusterOnly, list)
		}
		if !clusterOnly && !strings.Contains(readme, fmt.Sprintf("\n%d commands,", n)) {
			t.Errorf("README.md should say %d commands", n)
		}
	}
}
