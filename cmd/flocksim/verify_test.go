package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

const verifyTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: seq, name: Seq, dataType: bigint}
`

// TestReadWindowPagesASecond: rows of many devices within one second, more
// than a page, are read back each exactly once by splitting the second by
// device keys; one device with a page of rows in that second is an error
// naming it.
func TestReadWindowPagesASecond(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := platformtest.New(t)
	app := p.AddApp("sim", verifyTemplate)
	second := time.Date(2026, 11, 28, 10, 0, 7, 0, time.UTC)
	writers := map[int]int{11: 3, 12: 2, 13: 3, 14: 1, 17: 3} // device key → rows in the second
	var c *client.Client
	for key, n := range writers {
		in := p.Install(p.AddDevice(fmt.Sprint("d", key), platformtest.Key(key)), app, platformtest.Dev)
		dc := startClient(t, ctx, in)
		c = dc
		rows := make([]map[string]any, n)
		for i := range rows {
			rows[i] = map[string]any{"tsp": second.Add(time.Duration(key*10+i) * time.Millisecond), "seq": key*100 + i}
		}
		if _, err := dc.AppendRowsToTable(ctx, "readings", rows); err != nil {
			t.Fatal(err)
		}
	}
	w := window{from: second, to: second.Add(time.Hour), keyLo: 11, keyHi: 18}
	got := map[int64]int{}
	err := readWindow(ctx, c, "readings", "seq", w, 4, func(key int, seq int64, tsp time.Time) {
		if int(seq)/100 != key || !tsp.Equal(second.Add(time.Duration(key*10+int(seq)%100)*time.Millisecond)) {
			t.Errorf("row seq %d of device %d at %s", seq, key, tsp)
		}
		got[seq]++
	})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for key, n := range writers {
		want += n
		for i := range n {
			if c := got[int64(key*100+i)]; c != 1 {
				t.Errorf("row %d of device %d read %d times, want once", i, key, c)
			}
		}
	}
	if len(got) != want {
		t.Errorf("%d rows read, want %d", len(got), want)
	}

	// A page of rows of one device within the second cannot be split.
	err = readWindow(ctx, c, "readings", "seq", w, 3, func(int, int64, time.Time) {})
	if err == nil || !strings.Contains(err.Error(), "device 11 wrote 3 rows or more") {
		t.Fatalf("page of 3 with devices of 3 rows in one second: %v, want an error naming the device", err)
	}
}

// startClient starts a client of in, stopped at the end of the test.
func startClient(t *testing.T, ctx context.Context, in *platformtest.Installation) *client.Client {
	t.Helper()
	c, err := client.New(client.WithEnv(in.Env()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}
