// This file holds the comparison: the programs, the targets, the rules on
// linked packages, and the builds and package lists the go command makes.

package footprint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MaxRatio is the largest size of the SDK program, as a multiple of the
// hand-written one, on every target of SizeTargets.
const MaxRatio = 1.3

// The two programs compared, as packages of the module.
const (
	SDKProgram         = "./internal/footprint/device"
	HandwrittenProgram = "./internal/footprint/handwritten"
)

// Target is a GOOS=linux architecture with its variant.
type Target struct {
	GOARCH string
	GOARM  string // for arm
	GOMIPS string // for mips and mipsle
}

// String names the target: arm/v7, mipsle/softfloat, amd64.
func (t Target) String() string {
	switch {
	case t.GOARM != "":
		return t.GOARCH + "/v" + t.GOARM
	case t.GOMIPS != "":
		return t.GOARCH + "/" + t.GOMIPS
	}
	return t.GOARCH
}

// env returns the go command's environment for t.
func (t Target) env() []string {
	env := append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+t.GOARCH)
	if t.GOARM != "" {
		env = append(env, "GOARM="+t.GOARM)
	}
	if t.GOMIPS != "" {
		env = append(env, "GOMIPS="+t.GOMIPS)
	}
	return env
}

// SizeTargets are the targets whose sizes are compared.
var SizeTargets = []Target{{GOARCH: "amd64"}, {GOARCH: "arm64"}, {GOARCH: "arm", GOARM: "7"}}

// DevicePackages are the packages an edge app links, with the rules each
// follows: none links a package of Forbidden, except the ones allowed
// here (outbox keeps its queue in bbolt, agent reads the app's
// ai-template.yml).
var DevicePackages = map[string][]string{
	"./client":   nil,
	"./files":    nil,
	"./crossapp": nil,
	"./secrets":  nil,
	"./typed":    nil,
	"./agent":    {"go.yaml.in/yaml"},
	"./outbox":   {"go.etcd.io/bbolt"},
	SDKProgram:   nil,
}

// Forbidden are the packages (and the packages under them) a device
// program must not link: nexus and its reflection codec with what that
// brings in, the template engines, YAML, bbolt and the testing package.
var Forbidden = []string{
	"github.com/gammazero/nexus",
	"github.com/ugorji/go",
	"net/rpc",
	"encoding/gob",
	"text/template",
	"html/template",
	"go.yaml.in/yaml",
	"gopkg.in/yaml.v3",
	"go.etcd.io/bbolt",
	"testing",
}

// under reports whether pkg is root or a package under it.
func under(pkg, root string) bool {
	return pkg == root || strings.HasPrefix(pkg, root+"/")
}

// ForbiddenIn returns the packages of deps under an entry of Forbidden
// that is not under an entry of allowed.
func ForbiddenIn(deps []string, allowed []string) []string {
	var bad []string
	for _, d := range deps {
		for _, f := range Forbidden {
			if under(d, f) && !isAllowed(d, allowed) {
				bad = append(bad, d)
				break
			}
		}
	}
	return bad
}

func isAllowed(pkg string, allowed []string) bool {
	for _, a := range allowed {
		if under(pkg, a) {
			return true
		}
	}
	return false
}

// Build builds pkg for t into dir, stripped and without file paths
// (CGO_ENABLED=0, -trimpath, -ldflags=-s -w), from the module at root,
// and returns the program's path and size in bytes.
func Build(ctx context.Context, root, dir string, t Target, pkg string) (path string, size int64, err error) {
	out := filepath.Join(dir, filepath.Base(pkg)+"-"+strings.ReplaceAll(t.String(), "/", "-"))
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir, cmd.Env = root, t.env()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("go build %s for %s: %w\n%s", pkg, t, err, b)
	}
	fi, err := os.Stat(out)
	if err != nil {
		return "", 0, err
	}
	return out, fi.Size(), nil
}

// Deps lists the packages pkg links for t, itself included.
func Deps(ctx context.Context, root string, t Target, pkg string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", pkg)
	cmd.Dir, cmd.Env = root, t.env()
	b, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("go list -deps %s for %s: %w\n%s", pkg, t, err, ee.Stderr)
		}
		return nil, fmt.Errorf("go list -deps %s for %s: %w", pkg, t, err)
	}
	return strings.Fields(string(b)), nil
}
