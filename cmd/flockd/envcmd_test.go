package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
)

// deviceProgramVar, set to 1, makes the test binary run deviceProgram
// instead of the tests: the device program TestEnvConfiguresADevice starts
// from a shell configured by eval "$(flockd env sensor-1)".
const deviceProgramVar = "FLOCKD_TEST_DEVICE_PROGRAM"

// deviceProgram is a device app as the README shows one: client.New()
// reads the process environment. It appends a row to the demo's
// sensordata and reads it back.
func deviceProgram(out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.New()
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	return appendAndRead(ctx, c, out)
}

// appendAndRead appends a row with a unique source to sensordata and
// prints what GetHistory reads back for that source.
func appendAndRead(ctx context.Context, c *client.Client, out io.Writer) error {
	source := fmt.Sprintf("env-test-%s-%d", c.Identity().DeviceName, time.Now().UnixNano())
	if _, err := c.AppendToTable(ctx, "sensordata", map[string]any{"tsp": time.Now(), "temperature": 21.5, "source": source}); err != nil {
		return err
	}
	rows, err := c.GetHistory(ctx, "sensordata", &client.Query{Limit: 10, FilterAnd: []client.Filter{client.Where("source", "=", source)}})
	if err != nil {
		return err
	}
	if len(rows) != 1 {
		return fmt.Errorf("read %d rows of source %s, want 1", len(rows), source)
	}
	fmt.Fprintf(out, "device %s stored temperature %v\n", c.Identity().DeviceName, rows[0]["temperature"])
	return nil
}

// flockdEnv runs flockd env with args and returns its output.
func flockdEnv(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"env"}, args...), &out, io.Discard, nil)
	return out.String(), err
}

// TestEnvConfiguresADevice runs flockd env against a running flockd: a
// device program started from a shell that evals its export lines, and a
// client reading its dotenv output with WithEnvFile, each append and read
// a row; the JSON output is the same environment.
func TestEnvConfiguresADevice(t *testing.T) {
	f, logs := serveInBackground(t)
	want := f.Installations[0].Env // sensor-1, quickstart, DEV

	exports, err := flockdEnv(t, "-listen", strings.TrimPrefix(f.HTTPURL, "http://"), "sensor-1")
	if err != nil {
		t.Fatalf("flockd env: %v\n%s", err, logs)
	}
	if !strings.HasPrefix(exports, "export ") || strings.Count(exports, "\nexport ")+1 != len(want) {
		t.Errorf("flockd env printed:\n%s", exports)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no POSIX shell: %v", err)
	}
	file := filepath.Join(t.TempDir(), "exports.sh")
	if err := os.WriteFile(file, []byte(exports), 0o600); err != nil {
		t.Fatal(err)
	}
	// As a user would: eval "$(flockd env sensor-1)", then the program.
	cmd := exec.Command(sh, "-c", `eval "$(cat "$1")" && exec "$2"`, "sh", file, os.Args[0])
	cmd.Env = []string{deviceProgramVar + "=1", "IRONFLOCK_ENV_DIR=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "device sensor-1 stored temperature 21.5") {
		t.Fatalf("device program: %v\n%s\n%s", err, out, stderr.String())
	}

	dotenvOut, err := flockdEnv(t, "sensor-1", "quickstart", "-format", "dotenv", "-listen", f.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sensor-1.env")
	if err := os.WriteFile(path, []byte(dotenvOut), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.WithEnvFile(path))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Stop(ctx)
	var got bytes.Buffer
	if err := appendAndRead(ctx, c, &got); err != nil || !strings.Contains(got.String(), "stored temperature 21.5") {
		t.Fatalf("client from the dotenv file: %v %s", err, got.String())
	}

	jsonOut, err := flockdEnv(t, "-format", "json", "-listen", f.HTTPURL, "1", "-stage", "DEV")
	var env map[string]string
	if err != nil || json.Unmarshal([]byte(jsonOut), &env) != nil {
		t.Fatalf("json: %v\n%s", err, jsonOut)
	}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("json environment (-want +got):\n%s", diff)
	}
}

// TestEnvErrors: what flockd env says when it cannot answer.
func TestEnvErrors(t *testing.T) {
	f, _ := serveInBackground(t, "-console-token", "s3cret")
	addr := strings.TrimPrefix(f.HTTPURL, "http://")
	if _, err := flockdEnv(t, "-listen", addr, "sensor-1"); err == nil || !strings.Contains(err.Error(), "pass -token TOKEN or set FLOCKD_CONSOLE_TOKEN") {
		t.Errorf("without the token: %v", err)
	}
	if out, err := flockdEnv(t, "-listen", addr, "-token", "s3cret", "sensor-2"); err != nil || !strings.Contains(out, "export DEVICE_NAME='sensor-2'") {
		t.Errorf("with -token: %v\n%s", err, out)
	}
	t.Setenv(envTokenVar, "s3cret")
	if out, err := flockdEnv(t, "-listen", addr, "sensor-2"); err != nil || !strings.Contains(out, "export DEVICE_NAME='sensor-2'") {
		t.Errorf("with $%s: %v\n%s", envTokenVar, err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sensor-9"}, `there is no device "sensor-9"`},
		{[]string{"sensor-1", "weather"}, "device sensor-1 has no installation of app weather; it has: quickstart DEV"},
		{[]string{"-format", "yaml", "sensor-1"}, `unknown format "yaml"`},
		{[]string{}, "usage: flockd env"},
		{[]string{"a", "b", "c"}, "usage: flockd env"},
	} {
		if _, err := flockdEnv(t, append([]string{"-listen", addr}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("flockd env %v: %v, want %q", tc.args, err, tc.want)
		}
	}

	quiet, _ := serveInBackground(t, "-no-console")
	if _, err := flockdEnv(t, "-listen", quiet.HTTPURL, "sensor-1"); err == nil || !strings.Contains(err.Error(), "without -no-console") {
		t.Errorf("flockd without a console: %v", err)
	}
	if _, err := flockdEnv(t, "-listen", "127.0.0.1:1", "sensor-1"); err == nil || !strings.Contains(err.Error(), "cannot reach flockd") {
		t.Errorf("no flockd: %v", err)
	}
}
