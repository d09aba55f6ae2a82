// This file holds the fleet the benchmark runs on: flockd's environment
// file, the caller's and callee's installations, and the configuration
// flockbench gives the flockd it starts.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/flockgo/ironflock/internal/childproc"
	"github.com/flockgo/ironflock/internal/wire"
)

// flockdConfig provisions one app on two devices of one project; its
// table sensordata is the one the footprint programs of -memory write.
const flockdConfig = `projects:
  - name: bench
    devices:
      - name: caller
      - name: callee
apps:
  - name: bench
    data_template: |
      data:
        tables:
          - tablename: sensordata
            columns:
              - {id: tsp, name: Timestamp, dataType: timestamp}
              - {id: temperature, name: Temperature, dataType: numeric}
              - {id: source, name: Source, dataType: string}
installations:
  - {project: bench, device: caller, app: bench, stage: DEV}
  - {project: bench, device: callee, app: bench, stage: DEV}
`

// envFile is the part of flockd's environment file flockbench reads.
type envFile = childproc.EnvFile

// fleet is what the clients need: the router and two installations of one
// app and stage.
type fleet struct {
	WSURL   string
	HTTPURL string
	Caller  map[string]string // device environment of the measured clients
	Callee  map[string]string // device environment of the callee
}

// readFleet reads flockd's environment file at path.
func readFleet(path string) (*fleet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f envFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, a := range f.Installations {
		for _, b := range f.Installations[i+1:] {
			if a.App == b.App && a.Stage == b.Stage && a.Device != b.Device {
				return &fleet{WSURL: f.WSURL, HTTPURL: f.HTTPURL, Caller: a.Env, Callee: b.Env}, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: no app installed on two devices in the same stage", path)
}

// realm is the realm of env's installation.
func realm(env map[string]string) (string, error) {
	swarm, err1 := strconv.Atoi(env[wire.EnvSwarmKey])
	app, err2 := strconv.Atoi(env[wire.EnvAppKey])
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("environment without numeric %s and %s", wire.EnvSwarmKey, wire.EnvAppKey)
	}
	return wire.Realm(swarm, app, env[wire.EnvStage]), nil
}
