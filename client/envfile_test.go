// This file tests WithEnvFile: a client configured from a dotenv file.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/dotenv"
	"github.com/flockgo/ironflock/platformtest"
)

// TestWithEnvFile: a client reads its environment from a dotenv file and
// joins; a missing file and a bad line fail New naming the file and line.
func TestWithEnvFile(t *testing.T) {
	f := newFleet(t)
	b, err := dotenv.Marshal(f.a.Env())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "device.env")
	if err := os.WriteFile(path, append([]byte("# written by a test\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(append([]client.Option{client.WithEnvFile(path)}, fast...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	if id := c.Identity(); id.DeviceKey != f.a.Device().Key() || id.DeviceName != f.a.Device().Name() {
		t.Errorf("identity %+v, want device %d", id, f.a.Device().Key())
	}

	_, err = client.New(client.WithEnvFile(filepath.Join(dir, "missing.env")))
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "missing.env") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.env")
	if err := os.WriteFile(bad, []byte("A=1\n\nB='unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = client.New(client.WithEnvFile(bad))
	if !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), bad+": line 3: B: the single quote is not closed") {
		t.Errorf("bad file: %v", err)
	}
}

// A device program configured from the file flockd env -format dotenv
// writes (or the console's download).
func ExampleWithEnvFile() {
	p, err := platformtest.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	inst := p.Install(p.AddDevice("sensor-1"), p.AddApp("quickstart", ""), platformtest.Dev)
	// The file as flockd env -format dotenv prints it: KEY='value' lines.
	var file strings.Builder
	for k, v := range inst.Env() {
		fmt.Fprintf(&file, "%s='%s'\n", k, v)
	}
	path := filepath.Join(os.TempDir(), "example-sensor-1.env")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(path)

	c, err := client.New(client.WithEnvFile(path))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	defer c.Stop(context.Background())
	fmt.Println(c.Identity().DeviceName)
	// Output: sensor-1
}
