package footprint

import (
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
