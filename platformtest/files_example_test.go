package platformtest_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/flockgo/ironflock/platformtest"
)

// A platform keeps objects over 1 MiB in files of its spill folder. A run
// that was killed cannot remove its files; the next platform with the same
// folder removes them when it starts. Here an earlier process with this
// process's ID (as a restarted container's flockd has) left a folder.
func ExampleWithSpillDir() {
	data, err := os.MkdirTemp("", "flockd-data-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(data)
	spill := filepath.Join(data, "spill")
	left := filepath.Join(spill, fmt.Sprintf("%d-0123456789abcdef-1", os.Getpid()))
	if err := os.MkdirAll(left, 0o700); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "blob-1"), []byte("left over"), 0o600); err != nil {
		log.Fatal(err)
	}

	p, err := platformtest.Start(platformtest.WithSpillDir(spill))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	_, err = os.Stat(left)
	fmt.Println("left over removed:", os.IsNotExist(err))
	// Output: left over removed: true
}

// Without WithSpillDir the spill folder is in the system's temporary
// folder, never the temporary folder itself.
func ExampleDefaultSpillDir() {
	dir := platformtest.DefaultSpillDir()
	fmt.Println(filepath.Dir(dir) == filepath.Clean(os.TempDir()), dir != filepath.Clean(os.TempDir()))
	// Output: true true
}
