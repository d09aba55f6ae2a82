// This file holds the chaos test: a producer process appends rows to two
// tables without pause while the platform restarts, drops and freezes its
// links and the test kills the producer with SIGKILL and starts it again
// on the same directory. At the end every row Append acknowledged is
// stored exactly once, in per-table order.
//
// The producer is this test binary run again (child_test.go); it prints
// one line per acknowledged row, written whole before the next Append, so
// every line the test reads is a row the outbox promised to deliver.

package outbox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/selfexec"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

// chaosTables are the tables the producer writes, in turn.
var chaosTables = []string{"readings", "events"}

// The faults of the chaos test.
type chaosFault int

const (
	faultRestart chaosFault = iota
	faultDrop
	faultFreeze
	faultKill
)

func (f chaosFault) String() string {
	return [...]string{"restart", "drop", "freeze", "kill"}[f]
}

// TestChaos runs 20 router restarts, 8 link drops, 4 frozen links and 6
// SIGKILLs of the producer in a shuffled order (the seed is logged;
// OUTBOX_CHAOS_SEED replays one), each once the previous one has been
// recovered from: the producer acknowledged more rows and the sender
// delivered a batch since. OUTBOX_CHAOS_SCALE=n multiplies the faults
// for a longer soak.
func TestChaos(t *testing.T) {
	leakcheck.Check(t)
	scale := 1
	if v := os.Getenv("OUTBOX_CHAOS_SCALE"); v != "" {
		var err error
		if scale, err = strconv.Atoi(v); err != nil || scale < 1 {
			t.Fatalf("OUTBOX_CHAOS_SCALE=%q: want a positive integer", v)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("OUTBOX_CHAOS_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("OUTBOX_CHAOS_SEED=%q: %v", v, err)
		}
	}
	t.Logf("chaos seed %d (OUTBOX_CHAOS_SEED replays it)", seed)
	var plan []chaosFault
	for f, n := range map[chaosFault]int{faultRestart: 20, faultDrop: 8, faultFreeze: 4, faultKill: 6} {
		for range n * scale {
			plan = append(plan, f)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	// Map order is random; sort before shuffling so a seed replays.
	slicesSortFaults(plan)
	rng.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a hang guard, not a speed bound
	defer cancel()
	p := platformtest.New(t, platformtest.WithoutRecording())
	in := p.Install(p.AddDevice("gateway"), p.AddApp("telemetry", appTemplate), platformtest.Dev)
	env, err := json.Marshal(in.Env())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	acks := &ackLog{ids: map[string]string{}, changed: make(chan struct{})}
	started := time.Now()
	incarnation := 0
	child := startProducer(t, dir, string(env), incarnation, acks)
	done := map[chaosFault]int{}
	for _, f := range plan {
		progress(ctx, t, p, in, acks, child)
		switch f {
		case faultRestart:
			if err := p.Restart(); err != nil {
				t.Fatal(err)
			}
		case faultDrop:
			p.DropConnections()
		case faultFreeze:
			p.FreezeConnections()
		case faultKill:
			child.kill(t)
			incarnation++
			child = startProducer(t, dir, string(env), incarnation, acks)
		}
		done[f]++
	}
	progress(ctx, t, p, in, acks, child)
	child.finish(t)

	// Every acknowledged row stored once, in per-table order.
	acked := acks.snapshot()
	stored, dups, disorder := 0, 0, 0
	found := map[string]string{}
	for _, table := range chaosTables {
		prev := ""
		for _, r := range p.TableRows(in.Realm(), table) {
			id, _ := r["row_id"].(string)
			stored++
			if _, ok := found[id]; ok {
				dups++
			}
			found[id] = table
			if id <= prev {
				disorder++
			}
			prev = id
		}
	}
	lost := 0
	for id, table := range acked {
		if found[id] != table {
			lost++
		}
	}
	elapsed := time.Since(started).Round(100 * time.Millisecond)
	report := fmt.Sprintf("chaos: %d rows acknowledged by Append, %d stored (%d unacknowledged rows of killed producers delivered); %d restarts, %d link drops, %d frozen links, %d SIGKILLs; lost %d, duplicated %d, out of order %d; %s",
		len(acked), stored, stored-dups-(len(acked)-lost), done[faultRestart], done[faultDrop], done[faultFreeze], done[faultKill], lost, dups, disorder, elapsed)
	t.Log(report)
	fmt.Println(report)
	if lost != 0 || dups != 0 || disorder != 0 {
		t.Errorf("lost %d, duplicated %d, out of order %d: want 0 each", lost, dups, disorder)
	}
	if done[faultKill] < 5 || done[faultRestart] < 20 {
		t.Errorf("ran %v, want at least 20 restarts and 5 kills", done)
	}
}

// slicesSortFaults sorts faults in place.
func slicesSortFaults(fs []chaosFault) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j] < fs[j-1]; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// progress waits until the producer has acknowledged more rows and the
// sender has sent a batch since it was called: the system recovered from
// the last fault.
func progress(ctx context.Context, t *testing.T, p *platformtest.Platform, in *platformtest.Installation, acks *ackLog, child *producer) {
	t.Helper()
	sent := p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, Realm: in.Realm(), URI: "appendBulk.", Prefix: true, Times: 1})
	defer sent.Cancel()
	if err := acks.waitMore(ctx, 20, child.exited); err != nil {
		t.Fatalf("waiting for the producer: %v\n%s", err, child.stderr())
	}
	if err := sent.Wait(ctx, 1); err != nil {
		t.Fatalf("waiting for a bulk append: %v\n%s", err, child.stderr())
	}
}

// ackLog collects the rows acknowledged by every producer: id → table.
type ackLog struct {
	mu      sync.Mutex
	ids     map[string]string
	changed chan struct{} // closed and replaced on every new ack
}

func (a *ackLog) add(id, table string) {
	a.mu.Lock()
	a.ids[id] = table
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
}

// waitMore waits for n more acks than there are now.
func (a *ackLog) waitMore(ctx context.Context, n int, exited <-chan struct{}) error {
	a.mu.Lock()
	want := len(a.ids) + n
	a.mu.Unlock()
	for {
		a.mu.Lock()
		got, changed := len(a.ids), a.changed
		a.mu.Unlock()
		if got >= want {
			return nil
		}
		select {
		case <-changed:
		case <-exited:
			return fmt.Errorf("the producer exited")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (a *ackLog) snapshot() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]string, len(a.ids))
	for k, v := range a.ids {
		out[k] = v
	}
	return out
}

// producer is a running producer process.
type producer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	read   chan struct{} // closed when stdout has been read to its end
	exited chan struct{} // closed when the process has ended
	mu     sync.Mutex
	errBuf bytes.Buffer
	flushd bool
}

func (c *producer) stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errBuf.String()
}

// Write collects the child's stderr.
func (c *producer) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errBuf.Write(b)
}

// startProducer runs a producer on dir whose rows are numbered from
// incarnation×10⁷.
func startProducer(t *testing.T, dir, env string, incarnation int, acks *ackLog) *producer {
	t.Helper()
	cmd := selfexec.Command("-test.run=^$")
	cmd.Env = append(os.Environ(), childRole+"=producer", childDir+"="+dir, childEnv+"="+env,
		childBase+"="+strconv.Itoa(incarnation*10_000_000))
	c := &producer{cmd: cmd, read: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = c
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(selfexec.Explain(err))
	}
	go func() {
		defer close(c.read)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return // a last line without its newline was cut by the kill
			}
			f := strings.Fields(line)
			switch {
			case len(f) == 3 && f[0] == "ack":
				acks.add(f[2], f[1])
			case len(f) == 1 && f[0] == "flushed":
				c.mu.Lock()
				c.flushd = true
				c.mu.Unlock()
			}
		}
	}()
	go func() {
		<-c.read
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.read
		_ = cmd.Wait()
	})
	return c
}

// kill ends the producer with SIGKILL, wherever it is.
func (c *producer) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.read
	_ = c.cmd.Wait()
}

// finish asks the producer to stop appending, flush and exit.
func (c *producer) finish(t *testing.T) {
	t.Helper()
	_ = c.stdin.Close()
	<-c.read
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("producer: %v\n%s", err, c.stderr())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.flushd {
		t.Fatalf("the producer exited without flushing\n%s", c.errBuf.String())
	}
}

// producerChild appends rows to the chaos tables in turn until its stdin
// closes, printing "ack <table> <id>" for each, then flushes and exits.
// The client notices a frozen link within two seconds and reconnects at
// once.
func producerChild(dir, envJSON, baseText string) {
	var env map[string]string
	if err := json.Unmarshal([]byte(envJSON), &env); err != nil {
		fail("env: %v", err)
	}
	base, err := strconv.Atoi(baseText)
	if err != nil {
		fail("base: %v", err)
	}
	c, err := client.New(client.WithEnv(env), client.WithLogger(quiet),
		client.WithKeepalive(time.Second, time.Second), client.WithReconnectBackoff(20*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		fail("client: %v", err)
	}
	ob, err := outbox.Open(c, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet),
		outbox.WithBatch(200, 1<<20), outbox.WithRetryBackoff(20*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		fail("open: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = c.Start(ctx) }() // the producer appends while the platform is down too
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	for i := 0; ; i++ {
		select {
		case <-stop:
			fctx, fcancel := context.WithTimeout(context.Background(), 2*time.Minute)
			if err := ob.Flush(fctx); err != nil {
				fail("flush: %v (stats %+v)", err, ob.Stats())
			}
			fcancel()
			say("flushed")
			if err := ob.Close(); err != nil {
				fail("close: %v", err)
			}
			cancel()
			_ = c.Stop(context.Background())
			return
		default:
		}
		table := chaosTables[i%len(chaosTables)]
		id, err := ob.Append(ctx, table, reading{Tsp: t0, N: int64(base + i)})
		if err != nil {
			fail("append: %v", err)
		}
		say("ack %s %s", table, id)
	}
}
