// This file holds the growth bound: how much the SDK's device program may
// grow over a recorded baseline (issue 36: the observation hooks may add
// at most MaxGrowth to a device program that does not use them), measured
// as the program's content rather than its file.

package footprint

import (
	"context"
	"debug/elf"
	"fmt"
	"os/exec"
	"strings"
)

// MaxGrowth is the most the SDK program's content may grow over its
// baseline, in bytes, on every target of GrowthTargets.
const MaxGrowth = 50_000

// GrowthTargets are the targets whose growth is bounded: the size targets,
// and the 32-bit x86 and soft-float MIPS of small gateways.
var GrowthTargets = append(append([]Target(nil), SizeTargets...),
	Target{GOARCH: "386"}, Target{GOARCH: "mipsle", GOMIPS: "softfloat"})

// BaselineCommit is the commit the baseline was built from: the main line
// just before the observation hooks were merged (5ce8889, "Merge branch
// 'wt-f'"; the hooks came with 4d7bd3e).
const BaselineCommit = "5ce8889"

// BaselineGo is the go command that built the baseline: content sizes
// move with the toolchain, so another one cannot be compared with it.
const BaselineGo = "go1.26.8"

// Baseline is the content of the SDK program (Content) at BaselineCommit,
// built by BaselineGo like Build does, by target (Target.String).
// `go run ./internal/footprint/check -baseline DIR`, with DIR a checkout
// of the baseline's commit (git worktree add DIR COMMIT), prints it anew.
var Baseline = map[string]int64{
	"amd64":            6778170,
	"arm64":            6201097,
	"arm/v7":           6512402,
	"386":              6583802,
	"mipsle/softfloat": 7396222,
}

// Content returns the bytes an ELF program holds for its code and data:
// the sum of its sections' sizes, without the padding the linker puts
// between segments. On arm, arm64 and mips the segments start on 64 KiB
// boundaries, so the file grows by 64 KiB steps: a program whose content
// grows by 1 KB may grow by 64 KiB on disk, or by nothing.
func Content(path string) (int64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, fmt.Errorf("footprint: content of %s: %w", path, err)
	}
	defer f.Close()
	var n int64
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL {
			n += int64(s.Size)
		}
	}
	return n, nil
}

// Allowance is the content a feature that is not observation added to the
// SDK program after BaselineCommit, measured at its own commit: the
// program built there against the one built at its parent, by target
// (`go run ./internal/footprint/check -baseline DIR` on a checkout of
// each). The growth bound holds what is left once the allowances are
// taken off, so that it keeps bounding what the observation hooks cost.
type Allowance struct {
	Commit, Why string
	Bytes       map[string]int64 // by target (Target.String)
}

// Allowances are the features measured so since BaselineCommit.
var Allowances = []Allowance{{
	Commit: "b06b267",
	Why:    "an upgrade refused with 503 or 429 is retried after its Retry-After (issue 37)",
	Bytes:  map[string]int64{"amd64": 2207, "arm64": 2250, "arm/v7": 2236, "386": 2207, "mipsle/softfloat": 2453},
}, {
	Commit: "d529944",
	Why:    "an idle client holds one goroutine: the supervisor is resumed by the end of its session (issue 37, 9 KiB less per client)",
	Bytes:  map[string]int64{"amd64": 3776, "arm64": 3839, "arm/v7": 3967, "386": 3500, "mipsle/softfloat": 4432},
}}

// allowed returns the allowances of target.
func allowed(target string) int64 {
	var n int64
	for _, a := range Allowances {
		n += a.Bytes[target]
	}
	return n
}

// Growth is the SDK program's growth over Baseline on one target.
type Growth struct {
	Target        Target
	Content, File int64 // the program's content and file size, bytes
}

// Over returns the content's growth over the baseline less the
// allowances, in bytes.
func (g Growth) Over() int64 {
	t := g.Target.String()
	return g.Content - Baseline[t] - allowed(t)
}

// GoVersion returns the version of the go command (go env GOVERSION).
func GoVersion(ctx context.Context, root string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Contents builds the SDK program for every target of GrowthTargets into
// dir, from the module at root, and returns its content and file size.
func Contents(ctx context.Context, root, dir string) ([]Growth, error) {
	var gs []Growth
	for _, t := range GrowthTargets {
		path, size, err := Build(ctx, root, dir, t, SDKProgram)
		if err != nil {
			return nil, err
		}
		c, err := Content(path)
		if err != nil {
			return nil, err
		}
		gs = append(gs, Growth{Target: t, Content: c, File: size})
	}
	return gs, nil
}

// growthFailures lists the targets where the content grew by more than
// MaxGrowth, or that have no baseline.
func growthFailures(goVersion string, gs []Growth) []string {
	if len(gs) == 0 {
		return nil
	}
	if goVersion != BaselineGo {
		return []string{fmt.Sprintf("the growth bound's baseline was built by %s, this is %s: record the baseline again "+
			"(go run ./internal/footprint/check -baseline DIR, DIR a checkout of %s) and set BaselineGo",
			BaselineGo, goVersion, BaselineCommit)}
	}
	var f []string
	for _, g := range gs {
		if _, ok := Baseline[g.Target.String()]; !ok {
			f = append(f, fmt.Sprintf("%s: no baseline for the growth bound", g.Target))
			continue
		}
		for _, a := range Allowances {
			if _, ok := a.Bytes[g.Target.String()]; !ok {
				f = append(f, fmt.Sprintf("%s: the allowance of %s was not measured on it", g.Target, a.Commit))
			}
		}
		if g.Over() > MaxGrowth {
			f = append(f, fmt.Sprintf("%s: the SDK program's content grew by %d bytes over the baseline of %s, over %d "+
				"(observation hooks must cost a device program at most that; a feature that grows it otherwise is measured at its commit and recorded in Allowances)",
				g.Target, g.Over(), BaselineCommit, MaxGrowth))
		}
	}
	return f
}
