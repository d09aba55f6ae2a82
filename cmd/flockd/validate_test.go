package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/template"
)

// appDir writes a data template into dir/.ironflock and returns dir.
func appDir(t *testing.T, dataTemplate string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, template.Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, template.Dir, template.DataTemplateFile), []byte(dataTemplate), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestValidate(t *testing.T) {
	good := appDir(t, demoTemplate)
	bad := appDir(t, "data:\n  tables:\n    - tablename: Bad\n      columns:\n        - {id: tsp, name: T, dataType: float}\n")
	cases := []struct {
		name    string
		args    []string
		wantErr error  // nil: success
		errText string // when wantErr is nil but an error is expected
		out     []string
	}{
		{"valid app folder", []string{"validate", good}, nil, "", []string{"data-template.yml"}},
		{"valid .ironflock folder", []string{"validate", filepath.Join(good, template.Dir)}, nil, "", []string{"data-template.yml"}},
		{"invalid", []string{"validate", bad}, errInvalidTemplates, "", []string{"data-template.yml:3:", "tablename", `unknown type "float"`}},
		{"no templates", []string{"validate", t.TempDir()}, fs.ErrNotExist, "", nil},
		{"no folder", []string{"validate"}, nil, "usage: flockd validate DIR", nil},
		{"two folders", []string{"validate", good, bad}, nil, "usage: flockd validate DIR", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), tc.args, &out, io.Discard, nil)
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("error %v, want %v", err, tc.wantErr)
			case tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)):
				t.Errorf("error %v, want one containing %q", err, tc.errText)
			case tc.wantErr == nil && tc.errText == "" && err != nil:
				t.Errorf("error %v", err)
			}
			for _, s := range tc.out {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestServeDemoData: the demo app's table holds a few readings per device.
func TestServeDemoData(t *testing.T) {
	f, _ := serveInBackground(t)
	c := joinWithEnv(t, f.WSURL, f.Installations[0].Env)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.Call(ctx, "history.transformed.sensordata", nil, wamp.List{map[string]any{"limit": 100, "offset": 0}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Arguments[0].([]any)
	if len(rows) != 2*demoReadings {
		t.Fatalf("%d demo rows, want %d", len(rows), 2*demoReadings)
	}
	for _, r := range rows {
		row := r.(map[string]any)
		for _, k := range []string{"tsp", "temperature", "humidity", "source", "device_key", "authid"} {
			if row[k] == nil {
				t.Errorf("demo row %v lacks %s", row, k)
			}
		}
	}
}

// TestServeSeedData: a configuration seeds installation rows and the rows
// of a transform.
func TestServeSeedData(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "flockd.yml")
	err := os.WriteFile(config, []byte(`projects:
  - name: plant
    devices: [{name: press, device_key: 42}]
apps:
  - name: interop
    data_template: |
      data:
        tables:
          - tablename: readings
            columns:
              - {id: tsp, name: Time, dataType: timestamp}
              - {id: temp, name: Temperature, dataType: numeric}
        transforms:
          - tablename: hourly
            sql: SELECT 1
            columns:
              - {id: tsp, name: Hour, dataType: timestamp}
              - {id: avg_temp, name: Average, dataType: numeric}
    transform_rows:
      hourly:
        - {tsp: 2026-01-01T01:00:00Z, avg_temp: 21.5}
        - {tsp: 2026-01-01T00:00:00Z, avg_temp: 20}
installations:
  - project: plant
    device: press
    app: interop
    rows:
      readings:
        - {tsp: 2026-01-01T00:00:00Z, temp: 19.5}
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := serveInBackground(t, "-config", config)
	c := joinWithEnv(t, f.WSURL, f.Installations[0].Env)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	read := func(table string) []any {
		t.Helper()
		res, err := c.Call(ctx, "history.transformed."+table, nil, wamp.List{map[string]any{"limit": 10, "offset": 0}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Arguments[0].([]any)
	}
	if rows := read("readings"); len(rows) != 1 || rows[0].(map[string]any)["temp"] != 19.5 {
		t.Errorf("readings %v", rows)
	}
	rows := read("hourly")
	if len(rows) != 2 || fmt.Sprint(rows[0].(map[string]any)["avg_temp"]) != "20" {
		t.Errorf("hourly %v", rows)
	}
}

// TestSeedDataErrors: bad seed data fails provisioning with its path.
func TestSeedDataErrors(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown transform": {`
apps:
  - {name: a, transform_rows: {nosuch: [{x: 1}]}}
`, `apps[0].transform_rows: app "a" has no data template`},
		"row without tsp": {`
projects: [{name: p, devices: [{name: d}]}]
apps:
  - name: a
    data_template: |
      data:
        tables:
          - tablename: t
            columns: [{id: tsp, name: T, dataType: timestamp}]
installations:
  - {project: p, device: d, app: a, rows: {t: [{}]}}
`, `installations[0].rows: insert into "t": row 0: the row has no tsp`},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "flockd.yml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			err := run(context.Background(), []string{"-listen", "127.0.0.1:0", "-config", path}, io.Discard, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
