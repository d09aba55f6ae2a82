// This file holds the payload every client sends: the row, the device
// metadata the SDK adds to a publication, and their wire form.

package main

import "github.com/flockgo/ironflock/internal/wire"

// benchTopic is the topic of the publish scenarios.
const benchTopic = "com.example.flockbench.reading"

// calleeFunction is the device function the callee registers.
const calleeFunction = "echo"

// row returns the published and called row, already in the SDK's wire
// form (float64, int64, string, bool), about 100 bytes of msgpack.
func row() map[string]any {
	return map[string]any{
		"temperature": 21.5,
		"humidity":    int64(40),
		"pressure":    1013.25,
		"source":      "bench",
		"sensor":      "greenhouse-3",
		"seq":         int64(12345),
		"ok":          true,
	}
}

// reading is the row as a struct: what the SDK decodes a call's result
// and an invocation's arguments into (Into, LazyArgs).
type reading struct {
	Temperature float64 `json:"temperature"`
	Humidity    int64   `json:"humidity"`
	Pressure    float64 `json:"pressure"`
	Source      string  `json:"source"`
	Sensor      string  `json:"sensor"`
	Seq         int64   `json:"seq"`
	OK          bool    `json:"ok"`
}

// publishKwargs is the keyword arguments the SDK's Publish sends with the
// row as its only positional argument: the device metadata, as strings
// from the environment.
func publishKwargs(env map[string]string) map[string]any {
	return map[string]any{
		wire.KwSerialNumber: env[wire.EnvSerialNumber],
		wire.KwDeviceKey:    env[wire.EnvDeviceKey],
		wire.KwDeviceName:   env[wire.EnvDeviceName],
	}
}
