// This file holds the read-back: every acknowledged append is looked for
// in the table through the platform (a client's table query, device by
// device), and must be there exactly once.

package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/flockgo/ironflock/client"
)

// verifyWorkers is how many devices are read back at once.
const verifyWorkers = 8

// verifyReport is the read-back's counts.
type verifyReport struct {
	Devices int   `json:"devices"`
	Acked   int64 `json:"acked"`  // appends acknowledged
	Stored  int64 `json:"stored"` // rows of this run read back
	// Lost counts acknowledged appends not stored, Duplicated rows stored
	// more than once; Unacked appends stored without an acknowledgement
	// (their outcome was unknown to the device: allowed).
	Lost       int64    `json:"lost"`
	Duplicated int64    `json:"duplicated"`
	Unacked    int64    `json:"unacked_stored"`
	Failures   []string `json:"failures,omitempty"` // the first problems, named
}

// ok reports whether every acknowledged row was stored exactly once.
func (v *verifyReport) ok() bool { return v.Lost == 0 && v.Duplicated == 0 && len(v.Failures) == 0 }

// verify reads back every device's rows of this run with a client of the
// first device's: by time windows when the rows' tsp is generated as
// "now" (rows of earlier runs are then left out), else device by device
// (every row of the table counts).
func (s *sim) verify(ctx context.Context) (*verifyReport, error) {
	a := s.sc.Device.Append
	seqCol := seqColumn(a)
	c, err := client.New(client.WithEnv(s.devs[0].info.Env), client.WithLogger(discard))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("verify: join: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Stop(sctx)
	}()
	byKey := make(map[int]*device, len(s.devs))
	for _, d := range s.devs {
		byKey[d.info.Key] = d
	}
	rep := &verifyReport{Devices: len(s.devs)}
	stored := make(map[*device]map[int64]int, len(s.devs))
	for _, d := range s.devs {
		stored[d] = map[int64]int{}
	}
	if g, ok := s.gens["tsp"]; ok && g.kind == "now" {
		// Every row of the run has a tsp within it: read them by time
		// windows, each split until it holds fewer rows than a page.
		// The devices' clock is this process's: every row of the run has
		// a tsp from its start on. The platform takes a time range's
		// bounds in whole seconds, so rows before the start (an earlier
		// run's, in the same second) are left out here.
		start := s.started.Truncate(time.Millisecond)
		w := window{from: s.started.Truncate(time.Second), to: time.Now().Add(time.Minute).Truncate(time.Second)}
		for i, d := range s.devs {
			if key := d.info.Key; i == 0 {
				w.keyLo, w.keyHi = key, key+1
			} else {
				w.keyLo, w.keyHi = min(w.keyLo, key), max(w.keyHi, key+1)
			}
		}
		err = readWindow(ctx, c, a.Table, seqCol, w, readPage, func(key int, seq int64, tsp time.Time) {
			if d := byKey[key]; d != nil && !tsp.Before(start) {
				stored[d][seq]++
			}
		})
		for _, d := range s.devs {
			rep.add(d, stored[d], err)
		}
		return rep, nil
	}
	var mu sync.Mutex
	work := make(chan *device)
	var wg sync.WaitGroup
	for range verifyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				stored, err := readSeqs(ctx, c, a.Table, seqCol, d.info.Key)
				mu.Lock()
				rep.add(d, stored, err)
				mu.Unlock()
			}
		}()
	}
	for _, d := range s.devs {
		work <- d
	}
	close(work)
	wg.Wait()
	return rep, nil
}

// add counts device d's rows read back.
func (v *verifyReport) add(d *device, stored map[int64]int, err error) {
	fail := func(format string, args ...any) {
		if len(v.Failures) < 20 {
			v.Failures = append(v.Failures, fmt.Sprintf("device %s (key %d): ", d.info.Name, d.info.Key)+fmt.Sprintf(format, args...))
		}
	}
	if err != nil {
		fail("read back: %v", err)
		return
	}
	d.mu.Lock()
	acked := append([]int32(nil), d.acked...)
	d.mu.Unlock()
	v.Acked += int64(len(acked))
	isAcked := make(map[int64]bool, len(acked))
	for _, n := range acked {
		isAcked[int64(n)] = true
		switch stored[int64(n)] {
		case 0:
			v.Lost++
			fail("acknowledged row seq %d not stored", n)
		case 1:
		default:
			fail("acknowledged row seq %d stored %d times", n, stored[int64(n)])
		}
	}
	for n, count := range stored {
		v.Stored += int64(count)
		if count > 1 {
			v.Duplicated += int64(count - 1)
		}
		if !isAcked[n] {
			v.Unacked++
		}
	}
}

// readPage is the most rows one query returns.
const readPage = 10000

// window is a part of a table read back: the rows with a tsp in [from, to)
// (whole seconds: the platform's bounds) and, once a single second fills
// a page, a device_key in [keyLo, keyHi).
type window struct {
	from, to     time.Time
	keyLo, keyHi int
	byKey        bool // keyLo and keyHi bound the window
}

// readWindow reads the seq column, device key and tsp of every row of
// table in w, page rows at most per query, and gives each row to fn. A
// window whose query fills a page is split in two, and read again: at a
// whole second while it spans more than one, then by device keys (w's
// keys bound every device there may be). Only one device writing a page
// of rows within one second cannot be read back.
func readWindow(ctx context.Context, c *client.Client, table, seqCol string, w window, page int, fn func(key int, seq int64, tsp time.Time)) error {
	q := &client.Query{Limit: page, TimeRange: client.Between(w.from, w.to), Columns: []string{seqCol}}
	if w.byKey {
		q.FilterAnd = []client.Filter{client.Where("device_key", ">=", w.keyLo), client.Where("device_key", "<", w.keyHi)}
	}
	rows, err := c.GetHistory(ctx, table, q)
	if err != nil {
		return err
	}
	if len(rows) == page {
		a, b := w, w
		if mid := w.from.Add((w.to.Sub(w.from) / 2).Truncate(time.Second)); mid.After(w.from) {
			a.to, b.from = mid, mid
		} else if w.keyHi-w.keyLo > 1 {
			mid := w.keyLo + (w.keyHi-w.keyLo)/2
			a.keyHi, b.keyLo = mid, mid
			a.byKey, b.byKey = true, true
		} else {
			return fmt.Errorf("device %d wrote %d rows or more within the second at %s: the read-back cannot page them", w.keyLo, page, w.from.Format(time.RFC3339))
		}
		if err := readWindow(ctx, c, table, seqCol, a, page, fn); err != nil {
			return err
		}
		return readWindow(ctx, c, table, seqCol, b, page, fn)
	}
	for _, r := range rows {
		key, ok1 := asInt(r["device_key"])
		n, ok2 := asInt(r[seqCol])
		tsp, ok3 := asTime(r["tsp"])
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("row %v: device_key and %s are not both numbers, or tsp is not a time", r, seqCol)
		}
		fn(int(key), n, tsp)
	}
	return nil
}

// asTime reads a row's tsp: a time, or its ISO 8601 text.
func asTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, true
	case string:
		p, err := time.Parse(time.RFC3339Nano, t)
		return p, err == nil
	}
	return time.Time{}, false
}

// readSeqs reads the seq column of every row of device key in table and
// counts each value.
func readSeqs(ctx context.Context, c *client.Client, table, seqCol string, key int) (map[int64]int, error) {
	const page = readPage
	out := map[int64]int{}
	for offset := int64(0); ; offset += page {
		rows, err := c.GetHistory(ctx, table, &client.Query{
			Limit: page, Offset: offset,
			FilterAnd: []client.Filter{client.Where("device_key", "=", key)},
			Columns:   []string{seqCol},
		})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			n, ok := asInt(r[seqCol])
			if !ok {
				return nil, fmt.Errorf("column %s holds %v (%T), not a number", seqCol, r[seqCol], r[seqCol])
			}
			out[n]++
		}
		if len(rows) < page {
			return out, nil
		}
	}
}

// asInt reads a whole number in any of the forms a row may carry it.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case uint64:
		return int64(n), true
	case uint32:
		return int64(n), true
	case float64:
		return int64(n), float64(int64(n)) == n
	case float32:
		return int64(n), float32(int64(n)) == n
	}
	return 0, false
}
