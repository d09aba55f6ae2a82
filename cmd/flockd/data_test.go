package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

const dataConfig = `projects:
  - name: plant
    devices:
      - name: press-1
      - name: press-2
apps:
  - name: sensors
    data_template: |
      data:
        tables:
          - tablename: readings
            columns:
              - {id: tsp, name: T, dataType: timestamp}
              - {id: v, name: V, dataType: numeric}
installations:
  - {project: plant, device: press-1, app: sensors}
  - {project: plant, device: press-2, app: sensors}
users:
  - name: alice
    projects: {plant: admin}
`

// writeConfig writes a config file in a new folder and returns its path.
func writeConfig(t testing.TB, dir, yaml string) string {
	t.Helper()
	path := filepath.Join(dir, "flockd.yml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// stable is the part of an environment file a restart keeps: everything
// but the URLs (a new port each run here).
func stable(f envFile) ([]map[string]string, map[string]string) {
	var envs []map[string]string
	for _, in := range f.Installations {
		e := maps.Clone(in.Env)
		delete(e, wire.EnvEndpointURL)
		envs = append(envs, e)
	}
	return envs, f.Tokens
}

// TestDataFolderKeepsCredentials: by default flockd keeps its world in
// .flockd/flockd beside the config file flockd.yml; started again it writes the same
// serials, keys, credentials and tokens in the environment file, and a
// device removed from the config is removed with a log line.
func TestDataFolderKeepsCredentials(t *testing.T) {
	dir := t.TempDir()
	config := writeConfig(t, dir, dataConfig)
	first, logs, stop := serveStoppable(t, "-config", config)
	stop()
	if !strings.Contains(logs.String(), "data folder") || !strings.Contains(logs.String(), filepath.Join(dir, ".flockd", "flockd")) {
		t.Errorf("no data folder beside the config in the log:\n%s", logs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".flockd", "flockd", "registry.db")); err != nil {
		t.Fatal(err)
	}

	second, _, stop := serveStoppable(t, "-config", config)
	stop()
	envs1, tokens1 := stable(first)
	envs2, tokens2 := stable(second)
	if diff := cmp.Diff(envs1, envs2); diff != "" {
		t.Errorf("environments differ after a restart (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(tokens1, tokens2); diff != "" || !strings.HasPrefix(tokens2["alice"], "tok-") {
		t.Errorf("tokens %v differ after a restart:\n%s", tokens2, diff)
	}

	writeConfig(t, dir, strings.Replace(strings.Replace(dataConfig, "      - name: press-2\n", "", 1),
		"  - {project: plant, device: press-2, app: sensors}\n", "", 1))
	third, logs, stop := serveStoppable(t, "-config", config)
	stop()
	if !strings.Contains(logs.String(), `msg="device is no longer in the configuration: removed" project=plant device=press-2`) {
		t.Errorf("no log line of the removal:\n%s", logs)
	}
	if envs3, _ := stable(third); len(envs3) != 1 || !cmp.Equal(envs3[0], envs1[0]) {
		t.Errorf("press-1 after the removal of press-2: %v, was %v", envs3, envs1[0])
	}
}

// TestDataFolderTemplateChange: flockd started again on its data folder
// with a config whose data template adds a column and a file namespace
// serves them at once (a row with the new column, a file in the new
// namespace), and what was stored before stays.
func TestDataFolderTemplateChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	config := strings.Replace(dataConfig, "              - {id: v, name: V, dataType: numeric}\n",
		"              - {id: v, name: V, dataType: numeric}\n      files:\n        namespaces:\n          - name: default\n", 1)
	path := writeConfig(t, dir, config)
	first, _, stop := serveStoppable(t, "-config", path)
	w, err := dialEnv(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	mustCall := func(proc string, arg any) {
		t.Helper()
		if res, _, err := callOnce(ctx, w, proc, arg); err != nil || (strings.HasPrefix(proc, "files.") && !filesOK(res)) {
			t.Fatalf("%s: %v %v", proc, res, err)
		}
	}
	mustCall(appendProc(first, "readings", false), map[string]any{"tsp": 1000, "v": 1.5})
	mustCall(wire.FilesPut, map[string]any{"key": "a.txt", "data": "b2xk"})
	_ = w.Stop(ctx)
	stop()

	writeConfig(t, dir, strings.Replace(strings.Replace(config,
		"          - name: default\n", "          - name: default\n          - name: snapshots\n", 1),
		"              - {id: v, name: V, dataType: numeric}\n",
		"              - {id: v, name: V, dataType: numeric}\n              - {id: w, name: W, dataType: string}\n", 1))
	second, logs, stop := serveStoppable(t, "-config", path)
	defer stop()
	if w, err = dialEnv(ctx, second); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Stop(ctx) }()
	c := joinWithEnv(t, second.WSURL, second.Installations[0].Env)
	mustCall(appendProc(second, "readings", false), map[string]any{"tsp": 2000, "v": 2.5, "w": "new"})
	mustCall(wire.FilesPut, map[string]any{"namespace": "snapshots", "key": "s.txt", "data": "bmV3"})
	res, err := c.Call(ctx, wire.HistoryProc("readings"), nil, wamp.List{map[string]any{"limit": 10}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := res.Arguments[0].([]any)
	var got []string
	for _, r := range rows {
		row := r.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v", row["tsp"], row["v"], row["w"]))
	}
	if want := []string{"1970-01-01T00:00:01.000Z 1.5 <nil>", "1970-01-01T00:00:02.000Z 2.5 new"}; !cmp.Equal(got, want) {
		t.Errorf("history after the restart: %v, want %v\n%s", got, want, logs)
	}
	if content, ok := getFile(ctx, t, c, "a.txt"); !ok || content != "old" {
		t.Errorf("a.txt after the restart: %q, %v", content, ok)
	}
}

// TestDataFolderRefusals: a folder another flockd holds is refused, by
// serve and by check, naming its pid; a damaged folder is refused naming
// the file; -memory keeps nothing. The demo keeps its rows and files.
func TestDataFolderRefusals(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	_, _, stop := serveStoppable(t, "-data", data)
	inUse := fmt.Sprintf("%s is in use by flockd pid %d", data, os.Getpid())
	if err := run(context.Background(), []string{"-listen", "127.0.0.1:0", "-data", data}, io.Discard, io.Discard, nil); err == nil || !strings.Contains(err.Error(), inUse) {
		t.Errorf("second flockd: %v, want %q", err, inUse)
	}
	if err := run(context.Background(), []string{"check", "-data", data}, io.Discard, io.Discard, nil); err == nil || !strings.Contains(err.Error(), inUse) {
		t.Errorf("check of a held folder: %v", err)
	}
	stop()

	var out bytes.Buffer
	if err := run(context.Background(), []string{"check", "-data", data}, &out, io.Discard, nil); err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, want := range []string{"data folder " + data + ": format 2", "registry.db", "fleet.db", "files.db", "values checked",
		"registry: 1 projects, 2 devices, 1 apps, 2 installations, 1 users", "tables: 10 rows", "files: 3 objects", "ok: every file reads whole"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}

	path := filepath.Join(data, "registry.db")
	if err := os.Truncate(path, 3*4096); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "-data", data}, {"-listen", "127.0.0.1:0", "-data", data}} {
		err := run(context.Background(), args, io.Discard, io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), data+": registry.db: truncated") {
			t.Errorf("%v: %v", args, err)
		}
	}

	mem := t.TempDir()
	t.Chdir(mem)
	_, logs, stop := serveStoppable(t, "-memory")
	stop()
	if !strings.Contains(logs.String(), "in memory: nothing is kept") {
		t.Errorf("no in-memory line:\n%s", logs)
	}
	if entries, _ := os.ReadDir(mem); len(entries) != 0 {
		t.Errorf("-memory wrote %v", entries)
	}
}

// TestDemoDataFolder: the demo keeps its world in .flockd/demo in the
// working folder.
func TestDemoDataFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	first, _, stop := serveStoppable(t)
	stop()
	if _, err := os.Stat(filepath.Join(dir, ".flockd", "demo", "FORMAT")); err != nil {
		t.Fatal(err)
	}
	second, _, stop := serveStoppable(t)
	stop()
	envs1, _ := stable(first)
	envs2, _ := stable(second)
	if diff := cmp.Diff(envs1, envs2); diff != "" {
		t.Errorf("the demo's environments differ after a restart:\n%s", diff)
	}
}

// TestHelpListsCheck: flockd -h names the data folder flags and the check
// command.
func TestHelpListsCheck(t *testing.T) {
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, io.Discard, &errOut, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"flockd check [-data DIR]", "-data DIR", "-memory", "-allow-drop", ".flockd/NAME beside the -config file NAME.yml", ".flockd/demo", "-auth-log",
		// -spill-dir's defaults as used: the data folder's spill (platformtest/datadir.go), the temporary folder's in memory.
		"(default: spill in the data folder; with -memory, " + platformtest.DefaultSpillDir() + ")",
		"-memory-bytes n", "(default 536870912)"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("-h lacks %q:\n%s", want, errOut.String())
		}
	}
}

// TestCheckRefusesLostFile: a registry.db deleted from a folder that
// held one is refused by flockd check and by a start with the same
// message naming it, where flockd used to provision a new world; a whole
// folder's check says what reading every object cost.
func TestCheckRefusesLostFile(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	_, _, stop := serveStoppable(t, "-data", data)
	stop()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"check", "-data", data}, &out, io.Discard, nil); err != nil || !strings.Contains(out.String(), "compared with its record's SHA-256 in ") || !strings.Contains(out.String(), " MB/s)") {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
	if err := os.Remove(filepath.Join(data, "registry.db")); err != nil {
		t.Fatal(err)
	}
	checkErr := run(context.Background(), []string{"check", "-data", data}, io.Discard, io.Discard, nil)
	startErr := run(context.Background(), []string{"-listen", "127.0.0.1:0", "-data", data}, io.Discard, io.Discard, nil)
	want := data + ": registry.db: missing: its last acknowledged commit is commit "
	if checkErr == nil || startErr == nil || !strings.Contains(startErr.Error(), want) || checkErr.Error() != startErr.Error() {
		t.Errorf("check: %v\nstart: %v\nwant both %q", checkErr, startErr, want)
	}
	if _, err := os.Stat(filepath.Join(data, "registry.db")); err == nil {
		t.Error("the start made registry.db anew")
	}
}
