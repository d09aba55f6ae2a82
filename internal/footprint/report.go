// This file holds Check: the builds and package lists of the comparison,
// and the verdict.

package footprint

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Size is the size of both programs on one target.
type Size struct {
	Target           Target
	SDK, Handwritten int64 // bytes
}

// Ratio is the SDK program's size as a multiple of the hand-written one's.
func (s Size) Ratio() float64 { return float64(s.SDK) / float64(s.Handwritten) }

// Report is the outcome of Check.
type Report struct {
	Sizes []Size
	// Linked maps a package (a device package or a program) to the
	// forbidden packages it links.
	Linked map[string][]string
	// Growth is the SDK program's growth over Baseline by target, and
	// GoVersion the go command that built it.
	Growth    []Growth
	GoVersion string
}

// Failures lists what breaks the rules: a ratio above MaxRatio, a
// forbidden package linked, the hand-written program linking the SDK, a
// growth over MaxGrowth.
func (r *Report) Failures() []string {
	var f []string
	for _, s := range r.Sizes {
		if s.Ratio() > MaxRatio {
			f = append(f, fmt.Sprintf("%s: the SDK program is %.2f × the hand-written one (%d against %d bytes), over %.1f ×",
				s.Target, s.Ratio(), s.SDK, s.Handwritten, MaxRatio))
		}
	}
	pkgs := make([]string, 0, len(r.Linked))
	for p := range r.Linked {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		if bad := r.Linked[p]; len(bad) > 0 {
			f = append(f, fmt.Sprintf("%s links %s", p, strings.Join(bad, ", ")))
		}
	}
	return append(f, growthFailures(r.GoVersion, r.Growth)...)
}

// Write prints the sizes and the failures to w.
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "%-10s %12s %12s %7s\n", "target", "sdk", "handwritten", "ratio")
	for _, s := range r.Sizes {
		fmt.Fprintf(w, "%-10s %9.2f MB %9.2f MB %6.2f×\n", s.Target, mb(s.SDK), mb(s.Handwritten), s.Ratio())
	}
	if len(r.Growth) > 0 {
		fmt.Fprintf(w, "\ngrowth of the SDK program over %s (%s), at most %d bytes of content, less the allowances:\n", BaselineCommit, BaselineGo, MaxGrowth)
		for _, a := range Allowances {
			fmt.Fprintf(w, "  allowance %s: %s\n", a.Commit, a.Why)
		}
		fmt.Fprintf(w, "%-17s %12s %10s %12s\n", "target", "content", "growth", "file")
		for _, g := range r.Growth {
			fmt.Fprintf(w, "%-17s %12d %+10d %12d\n", g.Target, g.Content, g.Over(), g.File)
		}
	}
	for _, f := range r.Failures() {
		fmt.Fprintln(w, "FAIL:", f)
	}
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// Check builds both programs for every target of SizeTargets in a
// temporary directory and lists the packages of every device package,
// from the module at root.
func Check(ctx context.Context, root string) (*Report, error) {
	dir, err := os.MkdirTemp("", "footprint-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &Report{Linked: map[string][]string{}}
	for _, t := range SizeTargets {
		s := Size{Target: t}
		if _, s.SDK, err = Build(ctx, root, dir, t, SDKProgram); err != nil {
			return nil, err
		}
		if _, s.Handwritten, err = Build(ctx, root, dir, t, HandwrittenProgram); err != nil {
			return nil, err
		}
		r.Sizes = append(r.Sizes, s)
	}
	host := SizeTargets[0]
	for pkg, allowed := range DevicePackages {
		deps, err := Deps(ctx, root, host, pkg)
		if err != nil {
			return nil, err
		}
		r.Linked[pkg] = ForbiddenIn(deps, allowed)
	}
	deps, err := Deps(ctx, root, host, HandwrittenProgram)
	if err != nil {
		return nil, err
	}
	var sdk []string
	for _, d := range deps {
		if under(d, "github.com/flockgo/ironflock") && !under(d, "github.com/flockgo/ironflock/internal/footprint/handwritten") {
			sdk = append(sdk, d)
		}
	}
	r.Linked[HandwrittenProgram] = append(ForbiddenIn(deps, nil), sdk...)
	if r.GoVersion, err = GoVersion(ctx, root); err != nil {
		return nil, err
	}
	if r.Growth, err = Contents(ctx, root, dir); err != nil {
		return nil, err
	}
	return r, nil
}
