// This file holds the subscriber of -memory: an SDK client in a child
// process (flockbench -subscriber) that subscribes to as many topics as
// it is told and reports its Go heap after a garbage collection, while
// flockbench reads its resident memory.

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

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
	var env map[string]string
	if err := json.Unmarshal([]byte(os.Getenv(subscriberEnvVar)), &env); err != nil {
		return fmt.Errorf("subscriber: %s: %w", subscriberEnvVar, err)
	}
	c, err := client.New(client.WithEnv(env))
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Stop(sctx)
	}()
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
