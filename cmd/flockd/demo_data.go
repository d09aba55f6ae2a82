// This file holds the rows the demo seeds: a few readings per device in
// the demo app's sensordata table, ending at startup.

package main

import (
	"fmt"
	"time"
)

// demoReadings is how many readings each demo device starts with.
const demoReadings = 5

// demoRows returns the seeded rows of demo device number i (0, 1…): one
// reading every ten minutes up to now.
func demoRows(i int) map[string][]map[string]any {
	now := time.Now().UTC().Truncate(time.Second)
	rows := make([]map[string]any, demoReadings)
	for k := range rows {
		rows[k] = map[string]any{
			"tsp":         now.Add(-time.Duration(demoReadings-1-k) * 10 * time.Minute),
			"temperature": 20.5 + float64(i) + float64(k)/2,
			"humidity":    40 + float64(5*i+k),
			"source":      fmt.Sprintf("sensor-%d", i+1),
		}
	}
	return map[string][]map[string]any{"sensordata": rows}
}
