package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest"
)

// otherConfig is a second configuration for the folder of dataConfig: its
// own project and devices, and a table readings whose column v is now w,
// which dataConfig's kept data would refuse (a dropped column).
var otherConfig = strings.NewReplacer("plant", "lab", "press-", "bench-", "{id: v, name: V", "{id: w, name: W").Replace(dataConfig)

// writeNamedConfig writes yaml to dir/name and returns its path.
func writeNamedConfig(t *testing.T, dir, name, yaml string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startErr runs flockd with args and returns the error it refuses to
// start with, or nil once it served (and was stopped).
func startErr(args ...string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return run(ctx, append([]string{"-listen", "127.0.0.1:0"}, args...), io.Discard, io.Discard,
		func(*platformtest.Platform) { cancel() })
}

// TestTwoConfigsOneFolder: two configuration files in one folder, run one
// after the other and again, each keep their own world in .flockd/NAME:
// the same credentials at each start, and the second's template, which
// would drop a column of the first's data, does not touch it.
func TestTwoConfigsOneFolder(t *testing.T) {
	dir := t.TempDir()
	a := writeNamedConfig(t, dir, "plant.yml", dataConfig)
	b := writeNamedConfig(t, dir, "lab.yaml", otherConfig)

	a1, _, stop := serveStoppable(t, "-config", a)
	stop()
	b1, logs, stop := serveStoppable(t, "-config", b)
	stop()
	if !strings.Contains(logs.String(), filepath.Join(dir, ".flockd", "lab")) {
		t.Errorf("lab.yaml's data folder is not .flockd/lab:\n%s", logs)
	}
	a2, _, stop := serveStoppable(t, "-config", a)
	stop()
	b2, _, stop := serveStoppable(t, "-config", b)
	stop()

	for _, c := range []struct {
		name          string
		first, second envFile
	}{{"plant.yml", a1, a2}, {"lab.yaml", b1, b2}} {
		envs1, tokens1 := stable(c.first)
		envs2, tokens2 := stable(c.second)
		if len(envs1) != 2 {
			t.Fatalf("%s: %d installations, want 2", c.name, len(envs1))
		}
		if diff := cmp.Diff(envs1, envs2); diff != "" {
			t.Errorf("%s: environments differ after the other configuration ran (-first +second):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(tokens1, tokens2); diff != "" {
			t.Errorf("%s: tokens differ after the other configuration ran:\n%s", c.name, diff)
		}
	}
	if envsA, _ := stable(a1); cmp.Equal(envsA, func() []map[string]string { e, _ := stable(b1); return e }()) {
		t.Error("both configurations got the same devices")
	}
	for _, name := range []string{"plant", "lab"} {
		if _, err := os.Stat(filepath.Join(dir, ".flockd", name, "registry.db")); err != nil {
			t.Error(err)
		}
	}
}

// TestDataFolderOfAnotherConfig: -data naming the folder of another
// configuration is refused, naming the file it belongs to, the record and
// how to pick another folder; nothing in it changes.
func TestDataFolderOfAnotherConfig(t *testing.T) {
	dir := t.TempDir()
	a := writeNamedConfig(t, dir, "plant.yml", dataConfig)
	b := writeNamedConfig(t, dir, "lab.yml", otherConfig)
	if err := startErr("-config", a); err != nil {
		t.Fatal(err)
	}
	folderA := filepath.Join(dir, ".flockd", "plant")
	err := startErr("-config", b, "-data", folderA)
	if err == nil {
		t.Fatal("lab.yml started on plant.yml's data folder")
	}
	for _, want := range []string{"data folder " + folderA + " belongs to configuration " + a, "not to " + b,
		"-data DIR", filepath.Join(dir, ".flockd", "lab"), filepath.Join(folderA, "CONFIG")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q:\n%v", want, err)
		}
	}
	// The demo is refused the folder too, and a config the demo's.
	t.Chdir(dir)
	if err := startErr("-data", folderA); err == nil || !strings.Contains(err.Error(), "belongs to configuration "+a) {
		t.Errorf("the demo on plant.yml's folder: %v", err)
	}
	if err := startErr(); err != nil {
		t.Fatal(err)
	}
	if err := startErr("-config", a, "-data", filepath.Join(".flockd", "demo")); err == nil || !strings.Contains(err.Error(), "belongs to the demo") {
		t.Errorf("plant.yml on the demo's folder: %v", err)
	}
	// plant.yml's own folder still serves it.
	if err := startErr("-config", a); err != nil {
		t.Errorf("plant.yml after the refusals: %v", err)
	}
}

// TestMovedConfigTakesItsFolder: a folder whose configuration file no
// longer exists (renamed or moved) goes to the configuration started on
// it, with its kept world.
func TestMovedConfigTakesItsFolder(t *testing.T) {
	dir := t.TempDir()
	a := writeNamedConfig(t, dir, "plant.yml", dataConfig)
	folder := filepath.Join(dir, "kept")
	first, _, stop := serveStoppable(t, "-config", a, "-data", folder)
	stop()
	renamed := filepath.Join(dir, "plant-v2.yml")
	if err := os.Rename(a, renamed); err != nil {
		t.Fatal(err)
	}
	second, _, stop := serveStoppable(t, "-config", renamed, "-data", folder)
	stop()
	envs1, _ := stable(first)
	envs2, _ := stable(second)
	if diff := cmp.Diff(envs1, envs2); diff != "" {
		t.Errorf("environments differ after the rename:\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(folder, "CONFIG")); err != nil || strings.TrimSpace(string(b)) != renamed {
		t.Errorf("the folder's record after the rename: %q, %v; want %s", b, err, renamed)
	}
}

// TestLegacyDataFolder: a .flockd that is itself a data folder (written
// before each configuration had its own) is refused with the commands that
// hand it over and the -data that keeps using it; both work, and once
// -data recorded its configuration it is that configuration's default.
func TestLegacyDataFolder(t *testing.T) {
	dir := t.TempDir()
	a := writeNamedConfig(t, dir, "plant.yml", dataConfig)
	legacy := filepath.Join(dir, ".flockd")
	first, _, stop := serveStoppable(t, "-config", a, "-data", legacy)
	stop()
	if err := os.Remove(filepath.Join(legacy, "CONFIG")); err != nil { // an older flockd wrote none
		t.Fatal(err)
	}

	err := startErr("-config", a)
	if err == nil {
		t.Fatal("flockd started beside a .flockd of the older layout")
	}
	own := filepath.Join(legacy, "plant")
	move := "mv " + legacy + " " + legacy + ".old && mkdir " + legacy + " && mv " + legacy + ".old " + own
	for _, want := range []string{"data folder " + legacy + " holds the world of an older flockd", move, "-data " + legacy} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q:\n%v", want, err)
		}
	}
	var out strings.Builder
	if err := run(context.Background(), []string{"check", "-config", a}, &out, io.Discard, nil); err == nil || !strings.Contains(err.Error(), move) {
		t.Errorf("flockd check -config beside the older layout: %v", err)
	}

	// Kept as it is with -data, which records its configuration: from then
	// on it is that configuration's default, and another's is refused
	// naming it.
	kept, _, stop := serveStoppable(t, "-config", a, "-data", legacy)
	stop()
	envs1, _ := stable(first)
	if envs, _ := stable(kept); !cmp.Equal(envs, envs1) {
		t.Errorf("-data %s: environments %v, were %v", legacy, envs, envs1)
	}
	recorded, _, stop := serveStoppable(t, "-config", a)
	stop()
	if envs, _ := stable(recorded); !cmp.Equal(envs, envs1) {
		t.Errorf("the recorded older folder: environments %v, were %v", envs, envs1)
	}
	b := writeNamedConfig(t, dir, "lab.yml", otherConfig)
	if err := startErr("-config", b); err == nil || !strings.Contains(err.Error(), "it belongs to configuration "+a) ||
		!strings.Contains(err.Error(), "-data "+legacy) {
		t.Errorf("lab.yml beside plant.yml's older folder: %v", err)
	}
	if err := os.Remove(filepath.Join(legacy, "CONFIG")); err != nil {
		t.Fatal(err)
	}
	// Moved as the message says, it is the configuration's own.
	if err := os.Rename(legacy, legacy+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(legacy, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(legacy+".old", own); err != nil {
		t.Fatal(err)
	}
	moved, _, stop := serveStoppable(t, "-config", a)
	stop()
	if envs, _ := stable(moved); !cmp.Equal(envs, envs1) {
		t.Errorf("after the move: environments %v, were %v", envs, envs1)
	}
}
