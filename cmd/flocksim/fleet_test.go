package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// envScenario drives a running flockd's fleet from its environment file:
// a ramp, a storm that cuts every link, appends, publications and calls.
const envScenario = `fleet:
  env_file: %s
  devices: 12
device:
  append: {table: samples, every: 500ms, values: {tsp: now, seq: seq, source: device, value: 21.5}}
  publish: {topic: sim.status, every: 1s}
  serve: {function: echo}
  call: {function: echo, every: 1s}
verify: true
stages:
  - {name: ramp, ramp: 50, timeout: 2m}
  - {name: hold, hold: 1500ms}
  - {name: drop, storm: drop, timeout: 2m}
  - {name: after, hold: 1500ms}
`

// TestEnvFileShardSourcesDrop runs half of a 12-device scenario (-shard
// 2/2) against a flockd it did not start, taken from its environment
// file, dialing from two loopback addresses: the six devices join, every
// link cut by the storm comes back, every acknowledged row is stored once
// and each device dialed from its address.
func TestEnvFileShardSourcesDrop(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "flockd")
	if out, err := exec.Command("go", "build", "-o", bin, flockdPackage).CombinedOutput(); err != nil {
		t.Fatalf("build flockd: %v\n%s", err, out)
	}
	tmpl := defaultTemplate + "        - {id: source, name: Source, dataType: string}\n"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, _, err := startFlockd(ctx, &flockdSpec{Bin: bin, Args: []string{"-memory", "-no-record"}, DataTemplate: tmpl}, "", 12, "sim", "DEV")
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	sc := filepath.Join(dir, "scenario.yml")
	if err := os.WriteFile(sc, []byte(fmt.Sprintf(envScenario, p.env)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, stderr strings.Builder
	err = run(ctx, []string{"-scenario", sc, "-shard", "2/2", "-source", "127.0.0.2,127.0.0.3", "-live", "0"}, &out, &stderr)
	t.Log(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	var sum summary
	if err := json.Unmarshal([]byte(out.String()), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, out.String())
	}
	if sum.Devices != 6 || sum.Shard != "2/2" || strings.Join(sum.Sources, ",") != "127.0.0.2,127.0.0.3" || len(sum.Stages) != 4 {
		t.Fatalf("summary: %d devices, shard %s, sources %v, %d stages", sum.Devices, sum.Shard, sum.Sources, len(sum.Stages))
	}
	ramp, drop, after := sum.Stages[0], sum.Stages[2], sum.Stages[3]
	if ramp.Joined != 6 || drop.Joined != 6 || drop.Joins != 6 || drop.Missing != 0 {
		t.Errorf("ramp joined %d; storm: %d back, joined %d, missing %d; want 6", ramp.Joined, drop.Joins, drop.Joined, drop.Missing)
	}
	if after.Appends == 0 || after.Served == 0 || after.Acked <= after.Appends {
		t.Errorf("after the storm: %d appends, %d invocations served, %d acknowledged in all", after.Appends, after.Served, after.Acked)
	}
	if v := sum.Verify; v == nil || v.Devices != 6 || v.Acked != sum.Appends || v.Acked == 0 || !v.ok() {
		t.Errorf("read-back %+v of %d acknowledged appends", v, sum.Appends)
	}
}

// TestConnHolderSource: a device's links come from its source address,
// and cut closes the current one.
func TestConnHolderSource(t *testing.T) {
	ips, err := parseSources("127.0.0.4")
	if err != nil {
		t.Fatal(err)
	}
	h := newConnHolder(ips[0])
	l, err := netListen(t)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			accepted <- err.Error()
			return
		}
		accepted <- c.RemoteAddr().String()
		_, _ = io.Copy(io.Discard, c) // until the cut
		c.Close()
	}()
	c, err := h.dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if from := <-accepted; !strings.HasPrefix(from, "127.0.0.4:") {
		t.Errorf("the link came from %s, want 127.0.0.4", from)
	}
	h.cut()
	if _, err := c.Write([]byte("x")); err == nil {
		t.Error("the connection still writes after cut")
	}
}

// netListen listens on a free loopback port, closed when the test ends.
func netListen(t *testing.T) (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		t.Cleanup(func() { l.Close() })
	}
	return l, err
}
