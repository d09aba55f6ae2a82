// This file holds the identity a client acts as: device, app and stage,
// read from the environment, and the device metadata.

package client

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// Stage is the deployment stage of an app installation.
type Stage string

// The two stages. ENV=PROD in any case selects Prod; anything else Dev.
const (
	Dev  Stage = wire.StageDev
	Prod Stage = wire.StageProd
)

// ParseStage maps an ENV value to a stage: "PROD" in any case (trimmed) is
// Prod, anything else (DEV, empty, "production", "staging") is Dev.
func ParseStage(env string) Stage {
	if strings.EqualFold(strings.TrimSpace(env), wire.StageProd) {
		return Prod
	}
	return Dev
}

// Identity is who the client is: the device, the app and the stage.
type Identity struct {
	SerialNumber string
	DeviceKey    int // 0 when DEVICE_KEY is missing, blank, "0" or not a number
	DeviceName   string
	SwarmKey     int // 0 when SWARM_KEY is missing or not a number
	AppKey       int // 0 when APP_KEY is missing or not a number
	AppName      string
	Stage        Stage
}

// Realm is the realm of the app's data backend: realm-<swarm>-<app>-<stage>.
func (id Identity) Realm() string { return wire.Realm(id.SwarmKey, id.AppKey, string(id.Stage)) }

// identity is Identity plus the raw strings sent as device metadata.
type identity struct {
	Identity
	deviceKeyRaw  string // as injected, e.g. "42"; "" when missing
	deviceNameSet bool
}

func readIdentity(s *settings, env envSource, logger *slog.Logger) (identity, error) {
	var id identity
	id.SerialNumber = strings.TrimSpace(env.get(wire.EnvSerialNumber))
	if s.serial != nil {
		id.SerialNumber = strings.TrimSpace(*s.serial)
	}
	if id.SerialNumber == "" {
		return id, missingConfig("New", wire.EnvSerialNumber, "the device serial number is required (set DEVICE_SERIAL_NUMBER or use WithSerialNumber)")
	}

	id.deviceKeyRaw = strings.TrimSpace(env.get(wire.EnvDeviceKey))
	if s.deviceKey != nil {
		id.deviceKeyRaw = strconv.Itoa(*s.deviceKey)
	}
	if id.deviceKeyRaw == "0" {
		id.deviceKeyRaw = ""
	}
	if id.deviceKeyRaw != "" {
		if n, err := strconv.Atoi(id.deviceKeyRaw); err == nil && n > 0 {
			id.DeviceKey = n
		} else {
			logger.Warn("ironflock: DEVICE_KEY is not a positive number; device functions cannot be registered", "DEVICE_KEY", id.deviceKeyRaw)
		}
	} else {
		logger.Warn("ironflock: DEVICE_KEY is not set; device functions cannot be registered")
	}

	id.DeviceName = env.get(wire.EnvDeviceName)
	if s.deviceName != nil {
		id.DeviceName = *s.deviceName
	}
	id.deviceNameSet = id.DeviceName != ""

	id.SwarmKey = keyFromEnv(env, wire.EnvSwarmKey, s.swarmKey, logger)
	id.AppKey = keyFromEnv(env, wire.EnvAppKey, s.appKey, logger)

	id.AppName = strings.TrimSpace(env.get(wire.EnvAppName))
	if s.appName != nil {
		id.AppName = *s.appName
	}
	if id.AppName == "" {
		logger.Warn("ironflock: APP_NAME is not set; remote access URLs cannot be composed")
	}

	id.Stage = ParseStage(env.get(wire.EnvStage))
	if s.stage != nil {
		id.Stage = ParseStage(string(*s.stage))
	}
	return id, nil
}

func keyFromEnv(env envSource, name string, override *int, logger *slog.Logger) int {
	if override != nil {
		return *override
	}
	raw := strings.TrimSpace(env.get(name))
	if raw == "" {
		logger.Warn("ironflock: " + name + " is not set; Start will fail")
		return 0
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n <= 0 {
		logger.Warn("ironflock: "+name+" is not a positive integer; treated as unset", name, raw)
		return 0
	}
	return n
}

// requireApp reports the configuration Start needs to name a realm.
func (id identity) requireApp(op string) error {
	switch {
	case id.SwarmKey <= 0:
		return missingConfig(op, wire.EnvSwarmKey, "SWARM_KEY not set in environment variables")
	case id.AppKey <= 0:
		return missingConfig(op, wire.EnvAppKey, "APP_KEY not set in environment variables")
	}
	return nil
}

// metadata returns the device metadata merged into the kwargs of writes
// (docs/wire.md §3): unknown values are sent as null.
func (id identity) metadata() map[string]any {
	m := map[string]any{
		wire.KwSerialNumber: id.SerialNumber,
		wire.KwDeviceKey:    nil,
		wire.KwDeviceName:   nil,
	}
	if id.deviceKeyRaw != "" {
		m[wire.KwDeviceKey] = id.deviceKeyRaw
	}
	if id.deviceNameSet {
		m[wire.KwDeviceName] = id.DeviceName
	}
	return m
}
