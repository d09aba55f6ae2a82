package client

import "testing"

func TestTmpAllocs(t *testing.T) {
	row := map[string]any{"temperature": 21.5, "humidity": 40, "source": "bench", "ok": true}
	args := []any{row}
	n := testing.AllocsPerRun(1000, func() { _, _, _, _ = splitArgs[PublishOption]("Publish", "x", args) })
	m := testing.AllocsPerRun(1000, func() { _, _, _, _ = splitArgs[noOptions]("Publish", "x", args) })
	k := testing.AllocsPerRun(1000, func() { _, _, _, _ = splitArgs[CallOption]("Publish", "x", args) })
	t.Logf("publish %v noOptions %v call %v", n, m, k)
}
