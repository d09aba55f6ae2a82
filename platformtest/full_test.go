package platformtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestDiskFullREST: while the data folder's disk is full, a REST change
// is answered 500 and nothing of it is kept, neither then nor once space
// returns (nor after a restart); REST reads answer 200 all along; the log
// says "full" once for the episode and once when writes resume, however
// many requests were refused.
func TestDiskFullREST(t *testing.T) {
	leakcheck.Check(t)
	dir := filepath.Join(t.TempDir(), "data")
	logs := &worldtest.SyncBuffer{}
	p := New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	pr := p.AddProject("plant", Key(2))
	p.AddUser("alice", "alice-token", map[*Project]string{pr: RoleAdmin})
	const tok = "alice-token"
	create := func(name string) worldtest.RESTAnswer {
		return worldtest.RESTDo(t, p, http.MethodPost, "/swarms/2/devices", tok, fmt.Sprintf(`{"name":%q}`, name))
	}
	names := func(p *Platform) []string {
		t.Helper()
		a := worldtest.RESTOK(t, p, http.MethodGet, "/devices", tok, "", http.StatusOK, nil)
		var devs []struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(a.Body, &devs); err != nil {
			t.Fatalf("devices: %v: %s", err, a.Body)
		}
		var out []string
		for _, d := range devs {
			out = append(out, d.Name)
		}
		return out
	}
	if a := create("before"); a.Status != http.StatusOK && a.Status != http.StatusCreated {
		t.Fatalf("create before: %d %s", a.Status, a.Body)
	}

	p.data.SimulateFull(true)
	const refused = 20
	for i := range refused {
		if a := create(fmt.Sprintf("refused-%d", i)); a.Status != http.StatusInternalServerError || !strings.Contains(string(a.Body), "nothing of it is") {
			t.Fatalf("create on a full disk: %d %s", a.Status, a.Body)
		}
		if got := names(p); len(got) != 1 || got[0] != "before" { // a read while full: 200, without the refused device
			t.Fatalf("devices while full: %v", got)
		}
	}
	if err := p.reg.Audit(); err != nil {
		t.Errorf("memory and store differ while full: %v", err)
	}

	p.data.SimulateFull(false)
	if a := create("after"); a.Status != http.StatusOK && a.Status != http.StatusCreated {
		t.Fatalf("create once there is room: %d %s", a.Status, a.Body)
	}
	if got := names(p); strings.Join(got, ",") != "before,after" {
		t.Errorf("devices once there is room: %v, want before,after (no refused device kept later)", got)
	}
	if err := p.reg.Audit(); err != nil {
		t.Error(err)
	}
	if n := strings.Count(logs.String(), `msg="data folder full:`); n != 1 {
		t.Errorf("%d log lines saying full for one episode of %d refusals:\n%s", n, refused, logs)
	}
	if n := strings.Count(logs.String(), "writes resume"); n != 1 {
		t.Errorf("%d log lines saying writes resume:\n%s", n, logs)
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d error lines:\n%s", n, logs)
	}
	p.Close()

	again := New(t, WithDataDir(dir))
	if kept := names(again); strings.Join(kept, ",") != "before,after" {
		t.Errorf("devices after a restart: %v, want before,after", kept)
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestSpillNotAFolder: a data folder whose spill/ is a file is refused by
// the check and by the start alike, naming it.
func TestSpillNotAFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	p, err := Start(WithDataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	spill := filepath.Join(dir, "spill")
	if err := os.RemoveAll(spill); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spill, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "spill is not a folder but a file"
	if _, err := CheckDataDir(dir); err == nil || !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v, want %q", err, want)
	}
	p, err = Start(WithDataDir(dir))
	if err == nil {
		p.Close()
	}
	if err == nil || !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), want) {
		t.Errorf("start: %v, want %q", err, want)
	}
}
