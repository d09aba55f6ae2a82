// Command check compares the SDK's device program with the hand-written
// one (package footprint): it builds both for linux amd64, arm64 and
// arm/v7, prints their sizes, and fails when the SDK program is more than
// footprint.MaxRatio × the hand-written one on a target, when a device
// package links a forbidden package, or when the SDK program's content
// grew by more than footprint.MaxGrowth over footprint.Baseline (on 386
// and mipsle too). Run it from the module's root:
//
//	go run ./internal/footprint/check
//
// With -baseline DIR it builds the SDK program of the module at DIR (a
// checkout of the baseline's commit) and prints footprint.Baseline's
// entries for it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/flockgo/ironflock/internal/footprint"
)

func main() {
	baseline := flag.String("baseline", "", "print the baseline of the module at `DIR` instead of checking")
	flag.Parse()
	ctx := context.Background()
	if *baseline != "" {
		if err := printBaseline(ctx, *baseline); err != nil {
			fmt.Fprintln(os.Stderr, "footprint:", err)
			os.Exit(2)
		}
		return
	}
	r, err := footprint.Check(ctx, ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(2)
	}
	r.Write(os.Stdout)
	if len(r.Failures()) > 0 {
		os.Exit(1)
	}
}

// printBaseline prints the content of the SDK program of the module at
// root, by target, as footprint.Baseline's entries.
func printBaseline(ctx context.Context, root string) error {
	dir, err := os.MkdirTemp("", "footprint-baseline-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	v, err := footprint.GoVersion(ctx, root)
	if err != nil {
		return err
	}
	gs, err := footprint.Contents(ctx, root, dir)
	if err != nil {
		return err
	}
	fmt.Printf("// BaselineGo = %q\n", v)
	for _, g := range gs {
		fmt.Printf("\t%q: %d,\n", g.Target.String(), g.Content)
	}
	return nil
}
