// Command handwritten is the reference of the footprint comparison (see
// package footprint): the job of ../device written by hand with
// gorilla/websocket, crypto/tls, encoding/json and log/slog, over
// wamp.2.json: configuration from the device agent's environment, a device
// function, one publish, one append and one history read.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		slog.Error("handwritten", "err", err)
		os.Exit(1)
	}
}

// reading is a row of the table sensordata.
type reading struct {
	Tsp         time.Time `json:"tsp"`
	Temperature float64   `json:"temperature"`
	Source      string    `json:"source"`
}

// run does the job, prints "ready" on out and serves the device function
// until ctx ends.
func run(ctx context.Context, out io.Writer, getenv func(string) string) error {
	cfg, err := readConfig(getenv)
	if err != nil {
		return err
	}
	log := slog.Default()
	joinCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := connect(joinCtx, cfg, log)
	if err != nil {
		return err
	}
	defer s.leave()
	if cfg.deviceKey == "" || cfg.deviceKey == "0" {
		return fmt.Errorf("DEVICE_KEY is not set: this device cannot register functions")
	}
	echo := fmt.Sprintf("%d.%s.%d.%s.echo", cfg.swarm, cfg.deviceKey, cfg.app, cfg.stage)
	if err := s.register(ctx, echo, func(_ context.Context, args []any, _ map[string]any) ([]any, error) {
		return args, nil
	}); err != nil {
		return err
	}
	r := reading{Tsp: time.Now().UTC(), Temperature: 21.5, Source: "footprint"}
	if err := s.publish(ctx, "com.example.readings", []any{r}, cfg.meta()); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	table := fmt.Sprintf("%d.%d.sensordata", cfg.swarm, cfg.app)
	if _, err := s.call(ctx, "append."+table, []any{r}, cfg.meta()); err != nil {
		return err
	}
	raw, err := s.call(ctx, "history.transformed.sensordata", []any{map[string]any{"limit": 5, "offset": 0}}, nil)
	if err != nil {
		return err
	}
	var rows []map[string]any
	if raw != nil {
		if err := json.Unmarshal(raw, &rows); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	log.Info("handwritten: job done", "serial", cfg.serial, "history_rows", len(rows))
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case <-s.done:
		return fmt.Errorf("connection lost: %w", s.err)
	}
}
