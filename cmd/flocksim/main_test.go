package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/version/versiontest"
)

// TestVersionStamped: flocksim built as a release build would be, with
// its version stamped, prints that version for -version.
func TestVersionStamped(t *testing.T) {
	versiontest.CheckStamped(t, "flocksim")
}

func TestVersionUnstamped(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"-version"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "flocksim devel") && !strings.HasPrefix(out.String(), "flocksim v") {
		t.Errorf("flocksim -version printed %q", out.String())
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yml")
	if err := os.WriteFile(sc, []byte("fleet: {devices: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "-scenario FILE is required"},
		{[]string{"-scenario", sc, "extra"}, `unexpected argument "extra"`},
		{[]string{"-scenario", filepath.Join(dir, "none.yml")}, "none.yml"},
		{[]string{"-scenario", sc}, "scenario " + sc + ": fleet.devices: 0"},
		{[]string{"-scenario", sc, "-source", "127.0.0.1,nowhere"}, "fleet.devices"},
	} {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	if _, err := parseSources("127.0.0.1,nowhere"); err == nil || !strings.Contains(err.Error(), `"nowhere" is not an IP address`) {
		t.Errorf("parseSources: %v", err)
	}
}

// TestFleetFromEnv takes the first installations of the app and stage by
// device key, and refuses a fleet too small.
func TestFleetFromEnv(t *testing.T) {
	f := &envFile{}
	add := func(device, app, stage, key string) {
		f.Installations = append(f.Installations, struct {
			Device string            `json:"device"`
			App    string            `json:"app"`
			Stage  string            `json:"stage"`
			Env    map[string]string `json:"env"`
		}{device, app, stage, map[string]string{"DEVICE_KEY": key}})
	}
	add("c", "sim", "DEV", "3")
	add("a", "sim", "DEV", "1")
	add("p", "sim", "PROD", "2")
	add("o", "other", "DEV", "0")
	add("b", "SIM", "dev", "2")
	got, err := fleetFromEnv(f, "sim", "DEV", 2)
	if err != nil || len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" {
		t.Errorf("fleetFromEnv = %+v, %v; want a and b", got, err)
	}
	if _, err := fleetFromEnv(f, "sim", "DEV", 4); err == nil || !strings.Contains(err.Error(), "has 3 installations of app sim in DEV, the scenario wants 4") {
		t.Errorf("too small a fleet: %v", err)
	}
}
