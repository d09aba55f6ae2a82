package platformtest

import (
	"log/slog"
	"os"
	"testing"
)

func TestZZBurstProbe(t *testing.T) {
	old := newFixtureHook
	newFixtureHook = []Option{WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))}
	defer func() { newFixtureHook = old }()
	TestBurstNoEventDropped(t)
}
