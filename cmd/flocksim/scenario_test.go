package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

func TestParseScenarioDefaults(t *testing.T) {
	sc, err := parseScenario([]byte(`
flockd: {args: [-memory]}
fleet: {devices: 10}
device:
  append: {table: samples, every: 1s, values: {tsp: now, seq: seq, value: random 0 1}}
verify: true
stages:
  - {ramp: 100}
  - {hold: 2s}
  - {storm: kill, timeout: 1m}
  - {stop: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Fleet.App != "sim" || sc.Fleet.Stage != "DEV" || sc.Flockd.DataTemplate != defaultTemplate {
		t.Errorf("defaults: app %q stage %q template %q", sc.Fleet.App, sc.Fleet.Stage, sc.Flockd.DataTemplate)
	}
	names := []string{"1-ramp", "2-hold", "3-storm", "4-stop"}
	for i, st := range sc.Stages {
		if st.Name != names[i] {
			t.Errorf("stage %d named %q, want %q", i, st.Name, names[i])
		}
	}
	if sc.Stages[0].Timeout != 5*time.Minute || sc.Stages[2].Timeout != time.Minute {
		t.Errorf("timeouts %s, %s", sc.Stages[0].Timeout, sc.Stages[2].Timeout)
	}
	if seqColumn(sc.Device.Append) != "seq" {
		t.Errorf("seq column %q", seqColumn(sc.Device.Append))
	}
}

func TestParseScenarioErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown key", "fleet: {devices: 1, colour: red}", "colour"},
		{"no devices", "flockd: {}\nstages: [{ramp: 1}]", "fleet.devices: 0"},
		{"two sources", "flockd: {}\nfleet: {devices: 1, env_file: x}\nstages: [{ramp: 1}]", "exactly one of flockd"},
		{"no source", "fleet: {devices: 1}\nstages: [{ramp: 1}]", "exactly one of flockd"},
		{"first not ramp", "flockd: {}\nfleet: {devices: 1}\nstages: [{hold: 1s}]", "first stage must be a ramp"},
		{"two kinds", "flockd: {}\nfleet: {devices: 1}\nstages: [{ramp: 1, hold: 1s}]", "stages[0]: set exactly one"},
		{"bad storm", "flockd: {}\nfleet: {devices: 1}\nstages: [{ramp: 1}, {storm: flood}]", `stages[1].storm: "flood"`},
		{"kill without flockd", "fleet: {devices: 1, env_file: x}\nstages: [{ramp: 1}, {storm: kill}]", "kill needs the flockd"},
		{"bad random", "flockd: {}\nfleet: {devices: 1}\ndevice: {append: {table: t, every: 1s, values: {v: random 2 1}}}\nstages: [{ramp: 1}]", "device.append.values.v"},
		{"verify without seq", "flockd: {}\nfleet: {devices: 1}\nverify: true\nstages: [{ramp: 1}]", "verify: needs"},
		{"call unserved", "flockd: {}\nfleet: {devices: 1}\ndevice: {call: {function: f, every: 1s}}\nstages: [{ramp: 1}]", "must serve \"f\""},
		{"create incomplete", "fleet: {devices: 1, create: {url: http://x}}\nstages: [{ramp: 1}]", "fleet.create: url, token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseScenario([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseGenerator(t *testing.T) {
	for spec, want := range map[string]generator{
		"now":          {kind: "now"},
		"seq":          {kind: "seq"},
		"device":       {kind: "device"},
		"random -1 2":  {kind: "random", min: -1, max: 2},
		"21.5":         {kind: "const", value: 21.5},
		"line 1 press": {kind: "const", value: "line 1 press"},
	} {
		got, err := parseGenerator(spec)
		if err != nil || got != want {
			t.Errorf("parseGenerator(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	if _, err := parseGenerator("random 1"); err == nil {
		t.Error("random with one bound accepted")
	}
}

func TestShard(t *testing.T) {
	all := make([]deviceInfo, 10)
	for i := range all {
		all[i].Key = i + 1
	}
	seen := map[int]int{}
	for i := 1; i <= 3; i++ {
		sh, err := parseShard(fmt.Sprintf("%d/3", i))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range sh.pick(all) {
			seen[d.Key]++
		}
	}
	if len(seen) != 10 {
		t.Errorf("three shards drive %d of 10 devices", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("device %d driven by %d shards", k, n)
		}
	}
	for _, bad := range []string{"0/2", "3/2", "1", "a/b", "1/0"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("-shard %q accepted", bad)
		}
	}
}

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, time.Second}} {
		got := h.quantile(tc.q)
		if got < tc.want || float64(got) > float64(tc.want)*1.02 {
			t.Errorf("quantile(%v) = %s, want %s within 2 %%", tc.q, got, tc.want)
		}
	}
	for v := int64(0); v < 1<<20; v = v*3/2 + 1 {
		if top := bucketTop(bucketOf(v)); top < v || (v >= 128 && float64(top-v) > float64(v)/60) {
			t.Errorf("value %d falls in a bucket whose top is %d", v, top)
		}
	}
}

func TestFlockdConfig(t *testing.T) {
	cfg := flockdConfig(2, "sim", "DEV", defaultTemplate)
	for _, want := range []string{"{name: sim-00001}", "{name: sim-00002}", "- {project: sim, device: sim-00002, app: sim, stage: DEV}", "        - tablename: samples"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("configuration lacks %q:\n%s", want, cfg)
		}
	}
}

// TestExampleScenario: the example the docs show is a valid scenario.
func TestExampleScenario(t *testing.T) {
	sc, err := readScenario("example.yml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Flockd == nil || sc.Fleet.Devices != 1000 || len(sc.Stages) != 5 || !sc.Verify {
		t.Errorf("example: %+v", sc)
	}
}

// TestErrorKind: failures count under the WAMP URI or the SDK's reason,
// never under a text that names the device.
func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&client.OpError{Op: "Call", URI: "1.7.1.DEV.echo", Err: &client.WampError{URI: "wamp.error.no_such_procedure"}}, "wamp.error.no_such_procedure"},
		{&client.OpError{Op: "Publish", URI: "t", Err: client.ErrOutcomeUnknown}, "outcome unknown"},
		{fmt.Errorf("ironflock: Start %q: %w (last attempt: 503)", "realm-1-1-dev", context.Canceled), "context canceled"},
		{&client.OpError{Op: "RegisterDeviceFunction", URI: "1.9.1.DEV.echo", Err: errors.New("refused")}, "refused"},
	} {
		if got := errorKind(tc.err); got != tc.want {
			t.Errorf("errorKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestScenarioArgsFromEnvironment: $NAME and ${NAME} in flockd.args are
// the environment's; an unset one is an error naming the argument.
func TestScenarioArgsFromEnvironment(t *testing.T) {
	t.Setenv("FLOCKSIM_TEST_DIR", "/tmp/fleet")
	t.Setenv("FLOCKSIM_TEST_DB", "postgres://u@127.0.0.1/db")
	sc, err := parseScenario([]byte(`
flockd: {args: [-data, $FLOCKSIM_TEST_DIR, -db, "${FLOCKSIM_TEST_DB}?sslmode=disable"]}
fleet: {devices: 1}
stages: [{ramp: 1}]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-data", "/tmp/fleet", "-db", "postgres://u@127.0.0.1/db?sslmode=disable"}
	if strings.Join(sc.Flockd.Args, " ") != strings.Join(want, " ") {
		t.Errorf("args %q, want %q", sc.Flockd.Args, want)
	}
	_, err = parseScenario([]byte(`
flockd: {args: [-db, $FLOCKSIM_TEST_UNSET]}
fleet: {devices: 0}
stages: [{ramp: 1}]
`))
	for _, want := range []string{`flockd.args[1]: "$FLOCKSIM_TEST_UNSET" names $FLOCKSIM_TEST_UNSET, which is not set`, "fleet.devices: 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
	}
}

// TestKeptScenarios: the scenarios behind docs/performance.md's fleet
// figures are valid, given their variables.
func TestKeptScenarios(t *testing.T) {
	t.Setenv("FLOCKSIM_DATA", t.TempDir())
	t.Setenv("FLOCKSIM_DB", "postgres://u@127.0.0.1/db")
	for name, every := range map[string]time.Duration{"burst": 1900 * time.Millisecond, "sustained": 10 * time.Second, "storm": 10 * time.Second} {
		sc, err := readScenario("scenarios/" + name + ".yml")
		if err != nil {
			t.Fatal(err)
		}
		if sc.Fleet.Devices != 19000 || sc.Device.Append.Every != every || !sc.Verify {
			t.Errorf("%s: %d devices, a row every %s, verify %v", name, sc.Fleet.Devices, sc.Device.Append.Every, sc.Verify)
		}
	}
}
