// Command check compares the SDK's device program with the hand-written
// one (package footprint): it builds both for linux amd64, arm64 and
// arm/v7, prints their sizes, and fails when the SDK program is more than
// footprint.MaxRatio × the hand-written one on a target, or when a device
// package links a forbidden package. Run it from the module's root:
//
//	go run ./internal/footprint/check
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/flockgo/ironflock/internal/footprint"
)

func main() {
	r, err := footprint.Check(context.Background(), ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(2)
	}
	r.Write(os.Stdout)
	if len(r.Failures()) > 0 {
		os.Exit(1)
	}
}
