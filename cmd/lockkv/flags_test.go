package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Every flag is in exactly one --help group.
func TestFlagGroups(t *testing.T) {
	var o options
	fs := newFlagSet(&o)
	seen := map[string]string{}
	for _, g := range flagGroups {
		for _, name := range g.flags {
			if fs.Lookup(name) == nil {
				t.Errorf("group %s lists %q, which is no flag", g.title, name)
			}
			if prev, ok := seen[name]; ok {
				t.Errorf("flag %q is in groups %s and %s", name, prev, g.title)
			}
			seen[name] = g.title
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := seen[f.Name]; !ok {
			t.Errorf("flag --%s is in no --help group (flagGroups)", f.Name)
		}
	})
}

// README.md names every flag (as TestREADMECommandList does for commands).
func TestREADMEFlags(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	var o options
	newFlagSet(&o).VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		if !regexp.MustCompile("`" + regexp.QuoteMeta(dash+f.Name) + "[ `]").MatchString(readme) {
			t.Errorf("README.md does not document %s%s", dash, f.Name)
		}
	})
}

// run runs the binary with args and returns its stdout, stderr and exit
// status.
func run(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("lockkv %q: %v", args, err)
	}
	return o.String(), e.String(), code
}

var versionRE = regexp.MustCompile(`^lockkv server v=(\S+) sha=([0-9a-f]{8,12}):([01]) go=(go\S+) redis=7\.0\.15 bits=64\n$`)

func TestVersion(t *testing.T) {
	bin := lockkvBin(t)
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}, {"--addr", "127.0.0.1:0", "--version"}} {
		out, errOut, code := run(t, bin, args...)
		m := versionRE.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("lockkv %q: exit %d, %q %q; want a version line", args, code, out, errOut)
		}
		if m[4] != runtime.Version() {
			t.Errorf("lockkv %q says %s, built with %s", args, m[4], runtime.Version())
		}
	}
}

// The binary built as the Dockerfile builds it (static, trimmed, the
// release version and revision given by -ldflags) says so.
func TestReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	// The flags the Dockerfile builds with must be the ones tested here.
	const build = `CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/lockkv/lockkv/internal/buildinfo.version=${VERSION} -X github.com/lockkv/lockkv/internal/buildinfo.revision=${REVISION}" -o /out/lockkv ./cmd/lockkv`
	if !strings.Contains(string(b), build) {
		t.Fatalf("Dockerfile does not build with\n%s", build)
	}
	bin := filepath.Join(t.TempDir(), "lockkv")
	rev := strings.Repeat("0123456789abcdef", 3)[:40]
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
		"-s -w -X github.com/lockkv/lockkv/internal/buildinfo.version=v9.8.7 -X github.com/lockkv/lockkv/internal/buildinfo.revision="+rev,
		"-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, _, code := run(t, bin, "--version")
	want := fmt.Sprintf("lockkv server v=v9.8.7 sha=%s:0 go=%s redis=7.0.15 bits=64\n", rev[:12], runtime.Version())
	if code != 0 || out != want {
		t.Fatalf("--version: exit %d, %q; want %q", code, out, want)
	}
	// Static: no dynamic loader, so it runs on a scratch or distroless image.
	if elf, err := os.ReadFile(bin); err == nil && bytes.Contains(elf, []byte("/lib64/ld-linux")) {
		t.Error("the CGO_ENABLED=0 binary names a dynamic loader")
	}
}

// Mistakes on the command line end the process with status 2 and the
// usage, before anything listens; --help lists every flag by group.
func TestCommandLine(t *testing.T) {
	bin := lockkvBin(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "127.0.0.1:0", "extra"}, `unexpected argument "extra" after the flags: a config file goes first`},
		{[]string{"conf", "--addr", "127.0.0.1:0", "extra"}, `unexpected argument "extra"`},
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"version", "now"}, "version takes no arguments"},
		{[]string{"--log-format", "xml"}, `bad --log-format "xml": want text or json`},
	} {
		_, errOut, code := run(t, bin, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("lockkv %q: exit %d, stderr:\n%s\nwant status 2 and %q", tc.args, code, errOut, tc.want)
		}
		if code == 2 && !strings.Contains(errOut, "Run 'lockkv --help'") && !strings.HasPrefix(tc.want, "bad --") && !strings.HasPrefix(tc.want, "version") {
			t.Errorf("lockkv %q: no usage on stderr:\n%s", tc.args, errOut)
		}
	}

	out, _, code := run(t, bin, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	var o options
	fs := newFlagSet(&o)
	for gi, g := range flagGroups {
		i := strings.Index(out, "\n"+g.title+": ")
		if i < 0 {
			t.Fatalf("--help lacks the %s group:\n%s", g.title, out)
		}
		section := out[i+1:]
		if gi+1 < len(flagGroups) {
			if j := strings.Index(section, "\n"+flagGroups[gi+1].title+": "); j > 0 {
				section = section[:j]
			}
		}
		if !strings.Contains(section, "Example: lockkv") {
			t.Errorf("--help's %s group has no example", g.title)
		}
		for _, name := range g.flags {
			dash := "--"
			if len(name) == 1 {
				dash = "-"
			}
			if !strings.Contains(section, "\n  "+dash+name) {
				t.Errorf("--help's %s group lacks %s%s", g.title, dash, name)
			}
			if u := fs.Lookup(name).Usage; !strings.Contains(out, u) {
				t.Errorf("--help lacks the description of --%s (%q)", name, u)
			}
		}
	}
}
