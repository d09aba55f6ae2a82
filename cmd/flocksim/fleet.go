// This file holds the devices a run drives: read from a flockd's
// environment file, split by -shard.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/childproc"
	"github.com/flockgo/ironflock/internal/wire"
)

// envFile is the part of flockd's environment file flocksim reads.
type envFile = childproc.EnvFile

// deviceInfo is one simulated device: its name, key and the device
// environment its client gets.
type deviceInfo struct {
	Name string
	Key  int
	Env  map[string]string
}

// readEnvFile reads flockd's environment file at path.
func readEnvFile(path string) (*envFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f envFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("environment file %s: %w", path, err)
	}
	return &f, nil
}

// fleetFromEnv returns the first n installations of app in stage of f,
// by device key.
func fleetFromEnv(f *envFile, app, stage string, n int) ([]deviceInfo, error) {
	var all []deviceInfo
	for _, in := range f.Installations {
		if !strings.EqualFold(in.App, app) || !strings.EqualFold(in.Stage, stage) {
			continue
		}
		key, err := strconv.Atoi(in.Env[wire.EnvDeviceKey])
		if err != nil {
			return nil, fmt.Errorf("installation of %s on %s: %s is %q, not a number", in.App, in.Device, wire.EnvDeviceKey, in.Env[wire.EnvDeviceKey])
		}
		all = append(all, deviceInfo{Name: in.Device, Key: key, Env: in.Env})
	}
	if len(all) < n {
		return nil, fmt.Errorf("the fleet has %d installations of app %s in %s, the scenario wants %d devices", len(all), app, stage, n)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Key < all[j].Key })
	return all[:n], nil
}

// shard is -shard i/n: this process drives the devices whose index in the
// scenario's order, modulo n, is i-1.
type shard struct{ i, n int }

// parseShard reads "i/n" (1 ≤ i ≤ n); "" is the whole scenario.
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{1, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return shard{}, fmt.Errorf("-shard %q: want i/n with 1 ≤ i ≤ n, such as 2/4", s)
	}
	return shard{i, n}, nil
}

// owns reports whether the device at index idx belongs to the shard.
func (s shard) owns(idx int) bool { return idx%s.n == s.i-1 }

// pick returns the devices of all that belong to the shard.
func (s shard) pick(all []deviceInfo) []deviceInfo {
	var out []deviceInfo
	for i, d := range all {
		if s.owns(i) {
			out = append(out, d)
		}
	}
	return out
}
