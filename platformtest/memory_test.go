package platformtest

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
)

// TestMemoryByteLimit: without a data folder the bytes of the rows kept
// in memory are bounded beside their number: rows of 256 KiB are refused
// with storage_full once they would pass the bound (reads go on), the log
// says so once, and the console's overview shows it.
func TestMemoryByteLimit(t *testing.T) {
	leakcheck.Check(t)
	logs := &worldtest.SyncBuffer{}
	const limit = 2 << 20
	p := New(t, WithMemoryByteLimit(limit), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	in := p.Install(p.AddDevice("press"), p.AddApp("interop", keepTemplate), Dev)
	c := worldtest.Connect(t, p, in, client.JSON)
	meta := map[string]any{"DEVICE_SERIAL_NUMBER": in.Device().Serial()}
	proc := wire.AppendProc(in.Device().Project().Key(), in.App().Key(), "readings")
	big := strings.Repeat("x", 256<<10)
	stored := 0
	for i := 1; ; i++ {
		r := worldtest.Call(t, c, proc, map[string]any{"tsp": worldtest.Ms(time.Duration(i) * time.Second), "label": big}, meta, false)
		if r.ErrURI != "" {
			r.Refused(t, "past the byte bound", wire.ErrStorageFull)
			break
		}
		if stored++; stored > limit/(256<<10) {
			t.Fatalf("%d rows of 256 KiB stored under a bound of %d bytes", stored, limit)
		}
	}
	if stored < limit/(256<<10)-2 {
		t.Errorf("only %d rows of 256 KiB stored under a bound of %d bytes", stored, limit)
	}
	worldtest.Call(t, c, proc, map[string]any{"tsp": worldtest.Ms(time.Hour), "label": big}, meta, false).Refused(t, "again", wire.ErrStorageFull)
	worldtest.Call(t, c, proc, map[string]any{"tsp": worldtest.Ms(2 * time.Hour), "temp": 1}, meta, false).OK(t, "a small row still fits")
	if rows := worldtest.Call(t, c, "history.transformed.readings", worldtest.Q("limit", 100), nil, false).OK(t, "read").Rows(t); len(rows) != stored+1 {
		t.Errorf("read at the bound: %d rows, want %d", len(rows), stored+1)
	}
	if n := strings.Count(logs.String(), "raise -memory-bytes"); n != 1 {
		t.Errorf("%d log lines of the bound:\n%s", n, logs)
	}
	worldtest.Call(t, c, proc, map[string]any{"tsp": worldtest.Ms(3 * time.Hour), "label": big}, meta, false).Refused(t, "full again", wire.ErrStorageFull)
	if st := p.storage(); st.ByteLimit != limit || st.MemoryBytes > limit || st.MemoryBytes < int64(stored)*(256<<10) || !st.Full {
		t.Errorf("storage on the overview: %+v", st)
	}
}
