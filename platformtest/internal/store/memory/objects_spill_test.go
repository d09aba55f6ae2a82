package memory

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// deadPID returns the process ID of a process that has ended: a run of
// this test binary that runs no test.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

// leftover makes a spill folder named name under root holding one blob,
// as a process that was killed leaves it.
func leftover(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blob-1"), []byte("left over"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestSpillSweep: a new store removes what processes that are gone
// left in its spill folder: the folders of a dead process and those of an
// earlier process with this process's ID (a restarted container's flockd
// has the same ID every time). Running processes' folders and anything
// not named like a spill folder stay.
func TestSpillSweep(t *testing.T) {
	root := t.TempDir()
	dead := deadPID(t)
	gone := []string{
		leftover(t, root, fmt.Sprintf("%d-0123456789abcdef-1", dead)),
		leftover(t, root, fmt.Sprintf("%d-0123456789abcdef-7", os.Getpid())),
	}
	kept := []string{
		leftover(t, root, fmt.Sprintf("%d-0123456789abcdef-1", os.Getppid())), // running
		leftover(t, root, "notes"),
		leftover(t, root, fmt.Sprintf("%d-x-1", dead)),
	}
	s := NewObjects(root, nil)
	defer s.Close()
	for _, d := range gone {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", d, err)
		}
	}
	for _, d := range kept {
		if _, err := os.Stat(filepath.Join(d, "blob-1")); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	// A second store of this process leaves the first one's folder.
	w, err := s.spill.newBlobWriter(spillAbove + 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	s2 := NewObjects(root, nil)
	defer s2.Close()
	if _, err := os.Stat(w.file.Name()); err != nil {
		t.Errorf("another store of this process removed a live spill file: %v", err)
	}
}

// TestSpillFolder: large blobs go into a folder of this store inside the
// spill folder, which it makes on first use (with the folders above it),
// never directly into the system's temporary folder; Close removes it.
func TestSpillFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir on Unix
	t.Setenv("TMP", tmp)    // and on Windows
	s := NewObjects("", nil)
	if got := entries(t, tmp); len(got) != 0 {
		t.Errorf("New wrote %v to the temporary folder", got)
	}
	small, err := s.spill.newBlobWriter(spillAbove)
	if err != nil || small.file != nil {
		t.Fatalf("a small blob: %v, file %v", err, small.file)
	}
	w, err := s.spill.newBlobWriter(spillAbove + 1)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), spillAbove+1)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	b := w.finish()
	root := DefaultSpillDir()
	if filepath.Dir(root) != filepath.Clean(tmp) {
		t.Fatalf("default spill folder %s is not in %s", root, tmp)
	}
	if got := entries(t, tmp); !slices.Equal(got, []string{filepath.Base(root)}) {
		t.Errorf("temporary folder holds %v, want only %s", got, filepath.Base(root))
	}
	if dir := filepath.Dir(b.file.Name()); filepath.Dir(dir) != root {
		t.Errorf("spill file %s is not in a folder of %s", b.file.Name(), root)
	}
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("spill folder: %v, %v", fi.Mode(), err)
	}
	got, err := b.bytes()
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, %v", len(got), err)
	}
	s.Close()
	b.release()
	if got := entries(t, root); len(got) != 0 {
		t.Errorf("after Close the spill folder holds %v", got)
	}
	if _, err := s.spill.newBlobWriter(spillAbove + 1); err == nil {
		t.Error("a closed store spilled again")
	}
}

func TestParseSpillName(t *testing.T) {
	for name, want := range map[string]bool{
		"12-0123456789abcdef-3": true, "1-0123456789abcdef-1": true,
		"12-0123456789abcdef": false, "12-0123456789ABCDEF-3": false, "x-0123456789abcdef-3": false,
		"12-0123456789abcdef-": false, "-0123456789abcdef-3": false, "blob-1": false, "": false,
	} {
		if _, _, ok := parseSpillName(name); ok != want {
			t.Errorf("parseSpillName(%q) ok = %v", name, ok)
		}
	}
}
