// This file holds the subscriber of -memory: an SDK client in a child
// process (flockbench -subscriber) that subscribes to as many topics as
// it is told and reports its Go heap after a garbage collection, while
// flockbench reads its resident memory.

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/flockgo/ironflock/client"
)

// subscriberEnvVar carries the subscriber's device environment (JSON).
const subscriberEnvVar = "FLOCKBENCH_SUBSCRIBER_ENV"

// The lines the subscriber prints, each followed by its Go heap in bytes:
// once joined, and once subscribed to the number of topics read on its
// standard input.
const (
	subscriberReady = "flockbench-subscriber-ready "
	subscriberDone  = "flockbench-subscribed "
)

// subscriberMain is flockbench -subscriber: for each number n read on
// its standard input, it subscribes until it holds n subscriptions
// (topics com.example.memory.<i>, events dropped), then prints its heap.
// It ends with its standard input, SIGINT or SIGTERM.
func subscriberMain(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	env, err := childEnv(subscriberEnvVar)
	if err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	c, stop, err := startClient(ctx, env)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintln(stdout, subscriberReady+strconv.FormatUint(liveHeap(), 10))
	held := 0
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			return fmt.Errorf("subscriber: %q: %w", sc.Text(), err)
		}
		for ; held < n; held++ {
			if _, err := c.Subscribe(ctx, "com.example.memory."+strconv.Itoa(held), func(context.Context, *client.Event) {}); err != nil {
				return err
			}
		}
		fmt.Fprintln(stdout, subscriberDone+strconv.FormatUint(liveHeap(), 10))
	}
	return sc.Err()
}

// liveHeap collects garbage, returns what it can to the system, and
// returns the bytes of heap in use.
func liveHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
