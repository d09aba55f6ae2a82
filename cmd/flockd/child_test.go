package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// child is a flockd running in a process of its own: the test binary
// started again with childArgs (TestMain), which a test can kill.
type child struct {
	cmd     *exec.Cmd
	ready   chan struct{} // closed once the log says the environment file is written
	drained chan struct{} // closed once the process's log ended
	logs    *syncBuffer
	kill    func() // SIGKILL, then waits for the process; once
}

// childStartBound bounds the wait for a child flockd to serve, so that
// one that hangs at start fails the test with its log rather than leaving
// it waiting.
const childStartBound = time.Minute

// startChild starts flockd with args (and the extra environment env) in a
// child process and returns once it serves: its log says the environment
// file is written. It fails the test when the child ends before. The
// child is killed at the end of the test.
func startChild(t testing.TB, args []string, env ...string) *child {
	t.Helper()
	js, _ := json.Marshal(args)
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^$"), ready: make(chan struct{}), drained: make(chan struct{}), logs: &syncBuffer{}}
	c.cmd.Env = append(append(os.Environ(), childArgs+"="+string(js)), env...)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // reads the child's log until it ends
		defer close(c.drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = c.logs.Write([]byte(sc.Text() + "\n"))
			if strings.Contains(sc.Text(), "environment file written") && !isClosed(c.ready) {
				close(c.ready)
			}
		}
	}()
	c.kill = sync.OnceFunc(func() {
		_ = c.cmd.Process.Kill()
		<-c.drained
		_ = c.cmd.Wait()
		if strings.Contains(c.logs.String(), "DATA RACE") { // a child built with -race found one
			t.Errorf("the child flockd:\n%s", c.logs)
		}
	})
	t.Cleanup(c.kill)
	select {
	case <-c.ready:
	case <-c.drained:
		c.kill()
		t.Fatalf("the child flockd ended:\n%s", c.logs)
	case <-time.After(childStartBound):
		c.kill()
		t.Fatalf("the child flockd did not serve within %v:\n%s", childStartBound, c.logs)
	}
	return c
}

// isClosed reports whether ch is closed.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
