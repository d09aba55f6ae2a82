package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/childproc"
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
	bin := builtFlockd(t)
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
	h := newConnHolder(ips[0], nil)
	c, from := dialedFrom(t, h)
	if !strings.HasPrefix(from, "127.0.0.4:") {
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

// createConfig is a flockd with the app, one device of its own and an
// admin of the project.
const createConfig = `projects:
  - name: sim
    swarm_key: 1
    devices: [{name: seed}]
apps:
  - name: sim
    app_key: 1
    data_template: |
      data:
        tables:
          - tablename: samples
            columns:
              - {id: tsp, name: Timestamp, dataType: timestamp}
              - {id: seq, name: Sequence, dataType: numeric}
users:
  - {name: alice, token: alice-token, projects: {sim: admin}}
`

// createScenario makes 6 devices through the REST API.
const createScenario = `fleet:
  devices: 6
  create: {url: %s, token: alice-token, swarm_key: 1, app_key: 1}
device:
  append: {table: samples, every: 300ms, values: {tsp: now, seq: seq}}
verify: true
stages:
  - {ramp: 50, timeout: 2m}
  - {hold: 1s}
`

// TestCreateFleet: fleet.create makes the shard's devices through the REST
// API and installs the app; a second run finds them again by name, makes
// the others, and reads back only its own rows.
func TestCreateFleet(t *testing.T) {
	bin := builtFlockd(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "flockd.yml")
	if err := os.WriteFile(cfg, []byte(createConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	p := &flockdProc{bin: bin, dir: dir, env: filepath.Join(dir, "env.json"), log: &childproc.Tail{Max: 16 << 10},
		args: []string{"-memory", "-no-record", "-listen", "127.0.0.1:" + strconv.Itoa(port), "-config", cfg, "-env-file", filepath.Join(dir, "env.json")}}
	env, err := p.start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	sc := filepath.Join(dir, "scenario.yml")
	if err := os.WriteFile(sc, []byte(fmt.Sprintf(createScenario, env.HTTPURL)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		shard   string
		devices int
	}{{"1/2", 3}, {"", 6}} {
		var out, stderr strings.Builder
		args := []string{"-scenario", sc, "-live", "0"}
		if tc.shard != "" {
			args = append(args, "-shard", tc.shard)
		}
		err := run(ctx, args, &out, &stderr)
		t.Log(stderr.String())
		if err != nil {
			t.Fatalf("shard %q: %v", tc.shard, err)
		}
		var sum summary
		if err := json.Unmarshal([]byte(out.String()), &sum); err != nil {
			t.Fatal(err)
		}
		if v := sum.Verify; sum.Devices != tc.devices || v == nil || v.Acked == 0 || v.Acked != sum.Appends || !v.ok() || v.Stored != v.Acked+v.Unacked {
			t.Errorf("shard %q: %d devices, read-back %+v of %d appends", tc.shard, sum.Devices, sum.Verify, sum.Appends)
		}
	}
	var devices []restDevice
	if err := restDo(ctx, "alice-token", "GET", env.HTTPURL+"/v1/platform/devices", nil, &devices); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range devices {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "seed,sim-00001,sim-00003,sim-00005,sim-00002,sim-00004,sim-00006" {
		t.Errorf("devices after the two runs: %s", got)
	}
}

// TestAutoSource: without -source, devices dialing a flockd on loopback
// come from 127.0.0.1, 127.0.0.2, … one address per 2,000 devices, in
// turn; a device dialing elsewhere is left to the system.
func TestAutoSource(t *testing.T) {
	for _, tc := range []struct {
		i, n int
		want string
	}{{0, 10, "127.0.0.1"}, {1, 10, "127.0.0.1"}, {0, 4001, "127.0.0.1"}, {1, 4001, "127.0.0.2"}, {2, 4001, "127.0.0.3"}, {3, 4001, "127.0.0.1"}, {7, 1_000_000, "127.0.0.8"}, {253, 1_000_000, "127.0.0.254"}, {254, 1_000_000, "127.0.0.1"}} {
		if got := autoSource(tc.i, tc.n).String(); got != tc.want {
			t.Errorf("device %d of %d: %s, want %s", tc.i, tc.n, got, tc.want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:80": true, "127.9.9.9:1": true, "10.0.0.1:8080": false, "[::1]:8080": false, "example.com:80": false, "nonsense": false} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
	c, from := dialedFrom(t, newConnHolder(nil, autoSource(1, 4001)))
	defer c.Close()
	if !strings.HasPrefix(from, "127.0.0.2:") {
		t.Errorf("the link came from %s, want 127.0.0.2", from)
	}
}

// dialedFrom dials a loopback listener through h and returns the
// connection and the address the listener saw it come from; the listener's
// side reads until the connection ends.
func dialedFrom(t *testing.T, h *connHolder) (net.Conn, string) {
	t.Helper()
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
		_, _ = io.Copy(io.Discard, c)
		c.Close()
	}()
	c, err := h.dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return c, <-accepted
}
