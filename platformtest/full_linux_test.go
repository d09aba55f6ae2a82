//go:build linux

package platformtest

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestDiskFullTmpfs is TestDiskFullREST on a real full disk: the data
// folder on a tmpfs of 16 MiB (the test needs the right to mount one: as
// root; else the hook of TestDiskFullREST stands for it) filled by a file
// until it refuses a byte. REST changes are refused and none of them is
// kept once the filler is removed, nor after a restart; REST reads answer
// 200 while the disk is full.
func TestDiskFullTmpfs(t *testing.T) {
	leakcheck.Check(t)
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): TestDiskFullREST covers this with the folder's hook", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dir := filepath.Join(mnt, "data")
	p := New(t, WithDataDir(dir), WithSpillDir(t.TempDir()))
	pr := p.AddProject("plant", Key(2))
	p.AddUser("alice", "alice-token", map[*Project]string{pr: RoleAdmin})
	const tok = "alice-token"
	create := func(name string) worldtest.RESTAnswer {
		return worldtest.RESTDo(t, p, http.MethodPost, "/swarms/2/devices", tok, fmt.Sprintf(`{"name":%q}`, name))
	}
	if a := create("before"); a.Status >= 300 {
		t.Fatalf("create before: %d %s", a.Status, a.Body)
	}
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	for len(chunk) > 1 { // the last bytes too
		if _, err := f.Write(chunk); err != nil {
			chunk = chunk[:len(chunk)/2]
		}
	}
	_ = f.Close()
	refused := 0 // the others fit in the file's room and were acknowledged
	for i := range 50 {
		a := create(fmt.Sprintf("refused-%d", i))
		switch {
		case a.Status == http.StatusInternalServerError:
			refused++
		case a.Status >= 300:
			t.Fatalf("create on a full disk: %d %s", a.Status, a.Body)
		} // else it fit in pages bbolt had already: acknowledged, and kept

		worldtest.RESTOK(t, p, http.MethodGet, "/devices", tok, "", http.StatusOK, nil) // reads go on
	}
	if refused == 0 {
		t.Fatal("no change was refused on the full disk")
	}
	t.Logf("%d of 50 device creations refused on the full disk", refused)
	if err := p.reg.Audit(); err != nil {
		t.Errorf("memory and store differ while full: %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if a := create("after"); a.Status >= 300 {
		t.Fatalf("create once there is room: %d %s", a.Status, a.Body)
	}
	check := func(p *Platform) {
		t.Helper()
		a := worldtest.RESTOK(t, p, http.MethodGet, "/devices", tok, "", http.StatusOK, nil)
		kept := strings.Count(string(a.Body), `"name":"refused-`)
		if kept != 50-refused {
			t.Errorf("%d refused-* devices kept, %d were acknowledged", kept, 50-refused)
		}
	}
	check(p)
	p.Close()
	check(New(t, WithDataDir(dir), WithSpillDir(t.TempDir())))
}
