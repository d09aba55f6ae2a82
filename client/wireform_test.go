package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
)

func TestEncode(t *testing.T) {
	type reading struct {
		Tsp    time.Time `json:"tsp"`
		Temp   float64   `json:"temp"`
		Count  int       `json:"count"`
		Raw    []byte    `json:"raw"`
		Absent *string   `json:"absent,omitempty"`
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000000, time.FixedZone("CET", 3600))
	got, err := client.Encode(reading{Tsp: at, Temp: 21, Count: 3, Raw: []byte{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tsp": "2026-01-02T02:04:05.006Z", "temp": 21.0, "count": int64(3), "raw": []byte{1, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Encode (-want +got):\n%s", diff)
	}
	again, err := client.Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("Encode of the wire form changed it (-first +second):\n%s", diff)
	}
	if _, err := client.Encode(map[string]any{"c": make(chan int)}); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Encode(chan) = %v, want ErrInvalidArgument", err)
	}
}
