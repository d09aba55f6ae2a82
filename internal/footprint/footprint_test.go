package footprint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestForbiddenIn(t *testing.T) {
	deps := []string{"fmt", "testing", "testing/iotest", "text/template", "text/templatex", "github.com/ugorji/go/codec",
		"go.etcd.io/bbolt", "go.etcd.io/bbolt/errors", "go.yaml.in/yaml/v3", "github.com/gammazero/nexus/v3/wamp", "net/rpc/jsonrpc"}
	want := []string{"testing", "testing/iotest", "text/template", "github.com/ugorji/go/codec",
		"go.yaml.in/yaml/v3", "github.com/gammazero/nexus/v3/wamp", "net/rpc/jsonrpc"}
	if diff := cmp.Diff(want, ForbiddenIn(deps, []string{"go.etcd.io/bbolt"})); diff != "" {
		t.Errorf("ForbiddenIn (-want +got):\n%s", diff)
	}
	if got := ForbiddenIn([]string{"fmt", "net/http"}, nil); got != nil {
		t.Errorf("ForbiddenIn of the standard library = %v", got)
	}
}

func TestFailures(t *testing.T) {
	ok := &Report{Sizes: []Size{{Target: Target{GOARCH: "amd64"}, SDK: 130, Handwritten: 100}}, Linked: map[string][]string{"./client": nil}}
	if f := ok.Failures(); f != nil {
		t.Errorf("a ratio of exactly %.1f fails: %v", MaxRatio, f)
	}
	bad := &Report{
		Sizes:  []Size{{Target: Target{GOARCH: "arm", GOARM: "7"}, SDK: 131, Handwritten: 100}},
		Linked: map[string][]string{"./outbox": {"go.yaml.in/yaml/v3"}},
	}
	f := bad.Failures()
	if len(f) != 2 || !strings.HasPrefix(f[0], "arm/v7: the SDK program is 1.31 ×") || f[1] != "./outbox links go.yaml.in/yaml/v3" {
		t.Errorf("Failures = %q", f)
	}
}

func TestGrowthFailures(t *testing.T) {
	amd64 := Target{GOARCH: "amd64"}
	at := func(over int64) []Growth {
		return []Growth{{Target: amd64, Content: Baseline["amd64"] + allowed("amd64") + over}}
	}
	if f := growthFailures(BaselineGo, at(MaxGrowth)); f != nil {
		t.Errorf("a growth of exactly %d bytes fails: %v", MaxGrowth, f)
	}
	if f := growthFailures(BaselineGo, at(MaxGrowth+1)); len(f) != 1 || !strings.HasPrefix(f[0], "amd64: the SDK program's content grew by 50001 bytes") {
		t.Errorf("growthFailures of %d bytes = %q", MaxGrowth+1, f)
	}
	if f := growthFailures("go0.1", at(0)); len(f) != 1 || !strings.Contains(f[0], "baseline was built by "+BaselineGo+", this is go0.1") {
		t.Errorf("growthFailures of another toolchain = %q", f)
	}
	if f := growthFailures(BaselineGo, []Growth{{Target: Target{GOARCH: "riscv64"}}}); len(f) != 1 || f[0] != "riscv64: no baseline for the growth bound" {
		t.Errorf("growthFailures without a baseline = %q", f)
	}
	for _, g := range GrowthTargets {
		if _, ok := Baseline[g.String()]; !ok {
			t.Errorf("no baseline for %s", g)
		}
		for _, a := range Allowances {
			if _, ok := a.Bytes[g.String()]; !ok {
				t.Errorf("allowance %s not measured on %s", a.Commit, g)
			}
		}
	}
	// The allowances come off the growth: a program one byte over the
	// bound above the baseline alone is within it.
	if allowed("amd64") > 0 {
		if f := growthFailures(BaselineGo, []Growth{{Target: amd64, Content: Baseline["amd64"] + MaxGrowth + 1}}); f != nil {
			t.Errorf("growth of %d bytes with an allowance of %d failed: %v", MaxGrowth+1, allowed("amd64"), f)
		}
	}
}

func TestContent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Content(exe)
	if err != nil {
		t.Fatal(err)
	}
	if n <= 0 || n > fi.Size() {
		t.Errorf("Content of the test binary = %d bytes, file %d", n, fi.Size())
	}
	if _, err := Content(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "content of") {
		t.Errorf("Content of a missing file: %v", err)
	}
}
