package main

import (
	"context"
	"io"
	"testing"

	"github.com/flockgo/ironflock/internal/footprint/footprinttest"
)

func TestJob(t *testing.T) {
	footprinttest.CheckJob(t, func(ctx context.Context, out io.Writer, env map[string]string) error {
		return run(ctx, out, func(k string) string { return env[k] })
	})
}
