package template

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPathKeys(t *testing.T) {
	for path, want := range map[string][]string{
		"args[0]":                 {"args", "0"},
		"args[0].temperature":     {"args", "0", "temperature"},
		"args[2].tsp":             {"args", "2", "tsp"},
		"args[0].sensor.value":    {"args", "0", "sensor", "value"},
		"kwargs.DEVICE_NAME":      {"kwargs", "DEVICE_NAME"},
		"args[0][1][2]":           {"args", "0", "1", "2"},
		`args[0]["a.b"]`:          {"args", "0", "a.b"},
		`args[0]['x y'].z`:        {"args", "0", "x y", "z"},
		`kwargs["q\"uote"]`:       {"kwargs", `q"uote`},
		"details.publisher":       {"details", "publisher"},
		"args":                    {"args"},
		"args[0].ünïcode":         {"args", "0", "ünïcode"},
		"args[0].with-dash.and_1": {"args", "0", "with-dash", "and_1"},
	} {
		got, err := PathKeys(path)
		if err != nil {
			t.Errorf("PathKeys(%q): %v", path, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PathKeys(%q): %s", path, d)
		}
	}
	for path, msg := range map[string]string{
		"":             "empty path",
		".args":        "empty key at byte 0",
		"args.":        "empty key at byte 5",
		"args..x":      "empty key at byte 5",
		"args[":        "expected [index] or [\"key\"] at byte 4",
		"args[0":       "expected [index] or [\"key\"] at byte 4",
		"args[]":       "expected [index] or [\"key\"] at byte 4",
		"args[-1]":     "expected [index] or [\"key\"] at byte 4",
		`args["a]`:     `unterminated ["…"] at byte 4`,
		`args["a"`:     `unterminated ["…"] at byte 4`,
		"args]":        "unexpected ']' at byte 4",
		"args[0]x":     "unexpected 'x' at byte 7",
		"[0]":          "empty key at byte 0",
		`args['a'`:     `unterminated ['…'] at byte 4`,
		`args["a\"]`:   `unterminated ["…"] at byte 4`,
		"args[0]].foo": "unexpected ']' at byte 7",
	} {
		_, err := PathKeys(path)
		if err == nil || err.Error() != msg {
			t.Errorf("PathKeys(%q) = %v; want %q", path, err, msg)
		}
	}
	if DefaultPath("temperature") != "args[0].temperature" {
		t.Errorf("DefaultPath = %q", DefaultPath("temperature"))
	}
}
