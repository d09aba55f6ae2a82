// This file holds the press: the device's Go side of the three tools of
// .ironflock/ai-template.yml, with simulated sensors.

package main

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/flockgo/ironflock/agent"
)

// press simulates the device: its sensors and its service bookings.
type press struct {
	now func() time.Time

	mu      sync.Mutex
	tickets int
}

// temperatureArgs are the parameters of read_temperature.
type temperatureArgs struct {
	Sensor string  `json:"sensor"`
	Unit   *string `json:"unit"` // optional: C when left out
}

// reading is a temperature as the model reads it.
type reading struct {
	Sensor string  `json:"sensor"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
}

func (p *press) readTemperature(ctx context.Context, a temperatureArgs) (reading, error) {
	celsius := map[string]float64{"spindle": 41.5, "coolant": 18, "cabinet": 29.5}[a.Sensor]
	if a.Unit != nil && *a.Unit == "F" {
		return reading{Sensor: a.Sensor, Value: math.Round((celsius*9/5+32)*10) / 10, Unit: "F"}, nil
	}
	return reading{Sensor: a.Sensor, Value: celsius, Unit: "C"}, nil
}

// vibrationArgs are the parameters of vibration_history.
type vibrationArgs struct {
	Samples int `json:"samples"`
}

// vibration is one hourly reading of the spindle.
type vibration struct {
	At  time.Time `json:"at"`
	RMS float64   `json:"rms_mm_s"`
}

func (p *press) vibrationHistory(ctx context.Context, a vibrationArgs) ([]vibration, error) {
	hour := p.now().Truncate(time.Hour)
	out := make([]vibration, a.Samples)
	for i := range out {
		// The bearing wears: vibration grows by 0.25 mm/s an hour.
		out[i] = vibration{At: hour.Add(-time.Duration(i) * time.Hour), RMS: 7.5 - 0.25*float64(i)}
	}
	return out, nil
}

// serviceArgs are the parameters of schedule_service.
type serviceArgs struct {
	Reason     string `json:"reason"`
	WithinDays int    `json:"within_days"`
	Urgent     bool   `json:"urgent,omitempty"`
}

// booking is a booked service slot.
type booking struct {
	Ticket string    `json:"ticket"`
	Slot   time.Time `json:"slot"`
}

func (p *press) scheduleService(ctx context.Context, a serviceArgs) (booking, error) {
	days := a.WithinDays
	if a.Urgent {
		days = 1
	}
	if days > 14 {
		return booking{}, agent.InvalidArgument("within_days %d is too far: the service plan covers 14 days", a.WithinDays)
	}
	p.mu.Lock()
	p.tickets++
	n := p.tickets
	p.mu.Unlock()
	day := p.now().Truncate(24*time.Hour).AddDate(0, 0, days)
	return booking{Ticket: fmt.Sprintf("SRV-%04d", n), Slot: day.Add(6 * time.Hour)}, nil
}

// tools are the Go tools of the press, one per topic tool of the
// template.
func (p *press) tools() []agent.Tool {
	return []agent.Tool{
		agent.Typed("read_temperature", p.readTemperature),
		agent.Typed("vibration_history", p.vibrationHistory, agent.MaxResultBytes(4096)),
		agent.Typed("schedule_service", p.scheduleService),
	}
}
