// This file holds the scenario file: its YAML form, its defaults and its
// checks.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// scenario is a scenario file.
type scenario struct {
	// Flockd, when set, is the flockd flocksim starts with a generated
	// configuration of Fleet.Devices devices.
	Flockd *flockdSpec `yaml:"flockd"`
	Fleet  fleetSpec   `yaml:"fleet"`
	Device deviceSpec  `yaml:"device"`
	Stages []stage     `yaml:"stages"`
	// Verify reads every acknowledged row back through the platform at
	// the end (the append needs a column generated as "seq").
	Verify bool `yaml:"verify"`
}

// flockdSpec is the flockd flocksim starts.
type flockdSpec struct {
	// Bin is flockd's binary; empty builds ./cmd/flockd (run flocksim
	// from the repository) unless -flockd names one.
	Bin string `yaml:"bin"`
	// Args go to flockd after -listen, -config and -env-file: -data DIR,
	// -db URL, -memory, … $NAME and ${NAME} are replaced by environment
	// variables (an unset one is an error), so that a scenario kept in
	// the repository names a database without holding its URL.
	Args []string `yaml:"args"`
	// DataTemplate is the app's data template (inline YAML); empty is
	// defaultTemplate.
	DataTemplate string `yaml:"data_template"`
}

// fleetSpec says where the devices come from.
type fleetSpec struct {
	// Devices is how many devices the scenario drives (split by -shard).
	Devices int `yaml:"devices"`
	// App is the app whose installations are driven ("sim" by default).
	App string `yaml:"app"`
	// Stage is the installations' stage (DEV by default).
	Stage string `yaml:"stage"`
	// EnvFile is a running flockd's environment file (its -env-file):
	// the devices are its installations of App in Stage, the first
	// Devices of them by device key.
	EnvFile string `yaml:"env_file"`
	// Create, when set, creates the devices through the REST API of a
	// running flockd and installs App on them.
	Create *createSpec `yaml:"create"`
}

// createSpec creates devices through the REST API.
type createSpec struct {
	// URL is flockd's HTTP base (http://127.0.0.1:8080).
	URL string `yaml:"url"`
	// Token is an admin's bearer token of the project.
	Token string `yaml:"token"`
	// SwarmKey is the project the devices are created in.
	SwarmKey int `yaml:"swarm_key"`
	// AppKey is the app installed on them.
	AppKey int `yaml:"app_key"`
	// Prefix starts the devices' names ("sim-" by default): PREFIX00001, …
	Prefix string `yaml:"prefix"`
	// ConsoleToken is the console's token, when flockd asks for one: the
	// per-app credentials are read from the console (GET /env/{device});
	// without a console the devices join with the legacy credential.
	ConsoleToken string `yaml:"console_token"`
}

// deviceSpec is what every device does once joined.
type deviceSpec struct {
	// Subscribe subscribes every device to a topic once joined (events
	// are counted as served).
	Subscribe string       `yaml:"subscribe"`
	Append    *appendSpec  `yaml:"append"`
	Publish   *publishSpec `yaml:"publish"`
	Serve     *serveSpec   `yaml:"serve"`
	Call      *callSpec    `yaml:"call"`
}

// appendSpec appends a row to a table on a schedule.
type appendSpec struct {
	Table string        `yaml:"table"`
	Every time.Duration `yaml:"every"`
	// Values maps a column to its generator: "now" (the time), "seq"
	// (the device's count of appends, from 1), "device" (the device's
	// name), "random MIN MAX" (a number), anything else a constant.
	Values map[string]string `yaml:"values"`
}

// publishSpec publishes an acknowledged event on a schedule.
type publishSpec struct {
	Topic string        `yaml:"topic"`
	Every time.Duration `yaml:"every"`
}

// serveSpec registers a device function that answers with its first
// argument.
type serveSpec struct {
	Function string `yaml:"function"`
}

// callSpec calls the next device's function on a schedule (device i
// calls device i+1 of the scenario, which must serve it).
type callSpec struct {
	Function string        `yaml:"function"`
	Every    time.Duration `yaml:"every"`
}

// stage is one step of the run; exactly one of Ramp, Hold, Storm and
// Stop is set.
type stage struct {
	Name string `yaml:"name"`
	// Ramp joins the devices not yet joined at this many a second; the
	// stage ends when every one has joined.
	Ramp float64 `yaml:"ramp"`
	// Hold keeps the devices working for this long.
	Hold time.Duration `yaml:"hold"`
	// Storm is "drop" (cut every link) or "kill" (kill -9 the flockd
	// flocksim started and start it again); the stage ends when every
	// device has joined a new session.
	Storm string `yaml:"storm"`
	// Stop leaves the realm with every device.
	Stop bool `yaml:"stop"`
	// Timeout bounds a ramp or a storm (default 5m): devices not joined
	// by then are reported missing.
	Timeout time.Duration `yaml:"timeout"`
}

// kind names what s does.
func (s stage) kind() string {
	switch {
	case s.Ramp > 0:
		return "ramp"
	case s.Hold > 0:
		return "hold"
	case s.Storm != "":
		return "storm"
	case s.Stop:
		return "stop"
	}
	return ""
}

// defaultTemplate is the app's data template when flocksim starts flockd
// and the scenario gives none.
const defaultTemplate = `data:
  tables:
    - tablename: samples
      columns:
        - {id: tsp, name: Timestamp, dataType: timestamp}
        - {id: seq, name: Sequence, dataType: numeric}
        - {id: value, name: Value, dataType: numeric}
`

// readScenario reads and checks the scenario file at path.
func readScenario(path string) (*scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc, err := parseScenario(b)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return sc, nil
}

// parseScenario decodes b (unknown keys are errors), fills the defaults
// and checks it, reporting every problem found.
func parseScenario(b []byte) (*scenario, error) {
	var sc scenario
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return nil, err
	}
	if sc.Fleet.App == "" {
		sc.Fleet.App = "sim"
	}
	sc.Fleet.Stage = strings.ToUpper(sc.Fleet.Stage)
	if sc.Fleet.Stage == "" {
		sc.Fleet.Stage = "DEV"
	}
	var unset []error
	if sc.Flockd != nil {
		if sc.Flockd.DataTemplate == "" {
			sc.Flockd.DataTemplate = defaultTemplate
		}
		unset = expandArgs(sc.Flockd.Args, os.LookupEnv)
	}
	if c := sc.Fleet.Create; c != nil && c.Prefix == "" {
		c.Prefix = "sim-"
	}
	for i := range sc.Stages {
		if sc.Stages[i].Timeout == 0 {
			sc.Stages[i].Timeout = 5 * time.Minute
		}
		if sc.Stages[i].Name == "" {
			sc.Stages[i].Name = fmt.Sprintf("%d-%s", i+1, sc.Stages[i].kind())
		}
	}
	return &sc, errors.Join(append(unset, sc.check())...)
}

// expandArgs replaces $NAME and ${NAME} in args, in place, with lookup's
// values; it returns an error for each variable lookup does not know.
func expandArgs(args []string, lookup func(string) (string, bool)) []error {
	var errs []error
	for i, a := range args {
		args[i] = os.Expand(a, func(name string) string {
			v, ok := lookup(name)
			if !ok {
				errs = append(errs, fmt.Errorf("flockd.args[%d]: %q names $%s, which is not set in the environment", i, a, name))
			}
			return v
		})
	}
	return errs
}

// check reports every problem of sc, each naming its field.
func (sc *scenario) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	f := sc.Fleet
	if f.Devices < 1 {
		bad("fleet.devices: %d, want at least 1", f.Devices)
	}
	if f.Stage != "DEV" && f.Stage != "PROD" {
		bad("fleet.stage: %q, want DEV or PROD", f.Stage)
	}
	sources := 0
	if sc.Flockd != nil {
		sources++
	}
	if f.EnvFile != "" {
		sources++
	}
	if f.Create != nil {
		sources++
		if f.Create.URL == "" || f.Create.Token == "" || f.Create.SwarmKey < 1 || f.Create.AppKey < 1 {
			bad("fleet.create: url, token, swarm_key and app_key are required")
		}
	}
	if sources != 1 {
		bad("the devices come from exactly one of flockd (flocksim starts it), fleet.env_file and fleet.create; the scenario has %d", sources)
	}
	d := sc.Device
	if a := d.Append; a != nil {
		if a.Table == "" || a.Every <= 0 || len(a.Values) == 0 {
			bad("device.append: table, every (> 0) and values are required")
		}
		for col, spec := range a.Values {
			if _, err := parseGenerator(spec); err != nil {
				bad("device.append.values.%s: %v", col, err)
			}
		}
	}
	if p := d.Publish; p != nil && (p.Topic == "" || p.Every <= 0) {
		bad("device.publish: topic and every (> 0) are required")
	}
	if s := d.Serve; s != nil && s.Function == "" {
		bad("device.serve: function is required")
	}
	if c := d.Call; c != nil {
		if c.Function == "" || c.Every <= 0 {
			bad("device.call: function and every (> 0) are required")
		}
		if d.Serve == nil || d.Serve.Function != c.Function {
			bad("device.call: the devices must serve %q (device.serve.function) for the calls to be answered", c.Function)
		}
	}
	if sc.Verify && seqColumn(d.Append) == "" {
		bad("verify: needs device.append with a column generated as \"seq\"")
	}
	if len(sc.Stages) == 0 {
		bad("stages: none; a scenario starts with a ramp")
	} else if sc.Stages[0].kind() != "ramp" {
		bad("stages[0]: %q is a %s; the first stage must be a ramp", sc.Stages[0].Name, sc.Stages[0].kind())
	}
	for i, s := range sc.Stages {
		n := 0
		for _, set := range []bool{s.Ramp > 0, s.Hold > 0, s.Storm != "", s.Stop} {
			if set {
				n++
			}
		}
		if n != 1 {
			bad("stages[%d]: set exactly one of ramp (devices/s > 0), hold (a duration), storm and stop", i)
		}
		if s.Storm != "" && s.Storm != "drop" && s.Storm != "kill" {
			bad("stages[%d].storm: %q, want drop or kill", i, s.Storm)
		}
		if s.Storm == "kill" && sc.Flockd == nil {
			bad("stages[%d].storm: kill needs the flockd flocksim starts (flockd:)", i)
		}
		if s.Timeout < 0 {
			bad("stages[%d].timeout: negative", i)
		}
	}
	return errors.Join(errs...)
}

// seqColumn is the column a generates as "seq", or "".
func seqColumn(a *appendSpec) string {
	if a == nil {
		return ""
	}
	for col, spec := range a.Values {
		if strings.TrimSpace(spec) == "seq" {
			return col
		}
	}
	return ""
}

// generator makes one column's value for a device's n-th append.
type generator struct {
	kind     string // now, seq, device, random, const
	min, max float64
	value    any
}

// parseGenerator reads a column's generator.
func parseGenerator(spec string) (generator, error) {
	f := strings.Fields(spec)
	switch {
	case len(f) == 1 && (f[0] == "now" || f[0] == "seq" || f[0] == "device"):
		return generator{kind: f[0]}, nil
	case len(f) > 0 && f[0] == "random":
		if len(f) != 3 {
			return generator{}, fmt.Errorf("%q: want random MIN MAX", spec)
		}
		lo, err1 := strconv.ParseFloat(f[1], 64)
		hi, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || hi < lo {
			return generator{}, fmt.Errorf("%q: want random MIN MAX with numbers MIN ≤ MAX", spec)
		}
		return generator{kind: "random", min: lo, max: hi}, nil
	}
	if n, err := strconv.ParseFloat(spec, 64); err == nil {
		return generator{kind: "const", value: n}, nil
	}
	return generator{kind: "const", value: spec}, nil
}
