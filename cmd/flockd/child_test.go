package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain lets a test start the test binary as another program of its
// own process, which it can kill or configure through the environment:
// flockd itself (childArgs: the arguments, JSON) or a device program
// (deviceProgramVar). Otherwise it runs the tests.
func TestMain(m *testing.M) {
	if js := os.Getenv(childArgs); js != "" {
		var args []string
		if err := json.Unmarshal([]byte(js), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, args, os.Stdout, os.Stderr, nil)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "flockd:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(deviceProgramVar) == "1" {
		if err := deviceProgram(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "device program:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
