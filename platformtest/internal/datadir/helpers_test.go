package datadir

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// childDir is the environment variable that makes the test binary a child
// holding the folder it names until it is killed (lock_test.go).
const childDir = "DATADIR_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDir); dir != "" {
		holdChild(dir)
		return
	}
	if dir := os.Getenv(crashDir); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}

// holdChild opens dir, says so, and waits until stdin ends or it is
// killed.
func holdChild(dir string) {
	d, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	if _, err := os.Stat(filepath.Join(dir, "registry.db")); err == nil { // hold its bbolt lock too
		if _, err := d.DB("registry"); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
	}
	_, _ = os.Stdout.WriteString("held\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = d.Close()
	os.Exit(0)
}

// startHolder starts a child process holding dir and returns it once it
// holds it.
func startHolder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDir+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("child said %q, %v", line, err)
	}
	return cmd
}

// mustOpen opens dir or fails the test; the folder is closed at the end.
func mustOpen(t *testing.T, dir string, opts ...Option) *Dir {
	t.Helper()
	d, err := Open(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// fill writes n checked values of the given size into bucket b of file
// name, in transactions of 1000.
func fill(t *testing.T, d *Dir, name, bucket string, n, size int) {
	t.Helper()
	db, err := d.DB(name)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		err := db.Update(context.Background(), func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte(bucket))
			if err != nil {
				return err
			}
			for j := i; j < min(n, i+1000); j++ {
				v := fmt.Appendf(nil, "value-%08d-", j)
				v = append(v, make([]byte, max(0, size-len(v)))...)
				if err := Put(b, fmt.Appendf(nil, "k%08d", j), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// wantErr fails the test unless err wraps target and its message holds
// every part.
func wantErr(t *testing.T, err, target error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", target)
	}
	if target != nil && !isErr(err, target) {
		t.Errorf("error %v does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}
