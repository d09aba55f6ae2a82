package platformtest

import (
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// keepTemplate is the data template of the tests of what a data folder
// keeps: a plain table, an entity table with a secret column, and a
// namespace besides default.
const keepTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temp, name: Temperature, dataType: numeric}
        - {id: n, name: Count, dataType: bigint}
        - {id: label, name: Label, dataType: string}
        - {id: payload, name: Payload, dataType: json}
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
        - {id: api_key, name: API key, dataType: string, secret: true}
files:
  namespaces:
    - name: default
    - name: photos
`

// keptWorld is a platform on a data folder with keepTemplate installed on
// device 42 of project 2 (app 26), and a raw client of it.
type keptWorld struct {
	p  *Platform
	in *Installation
	c  *client.Client
}

// openKeptWorld starts a platform on dir at addr ("": any port),
// provisioning the world when the folder is new.
func openKeptWorld(t *testing.T, dir, addr string) *keptWorld {
	t.Helper()
	opts := []Option{WithDataDir(dir), WithStartTime(worldtest.T0.Add(24 * time.Hour))}
	if addr != "" {
		opts = append(opts, WithAddr(addr))
	}
	p := New(t, opts...)
	in := p.InstallationOf(42, 26, Dev)
	if in == nil {
		pr := p.AddProject("plant", Key(2))
		in = p.Install(pr.AddDevice("press", Key(42)), p.AddApp("interop", keepTemplate, Key(26)), Dev)
	}
	return &keptWorld{p: p, in: in, c: worldtest.Connect(t, p, in, client.JSON)}
}

func (w *keptWorld) meta() map[string]any {
	return map[string]any{"DEVICE_SERIAL_NUMBER": w.in.Device().Serial(), "DEVICE_KEY": "42", "DEVICE_NAME": "press"}
}

// files calls a files.* procedure and returns its payload.
func (w *keptWorld) files(t *testing.T, uri string, payload map[string]any) map[string]any {
	t.Helper()
	env := worldtest.Call(t, w.c, uri, payload, nil, false).OK(t, uri).Args[0].(map[string]any)
	if env["success"] != true {
		t.Fatalf("%s %v: %v", uri, payload, env)
	}
	p, _ := env["payload"].(map[string]any)
	return p
}

// TestRestartKeepsRowsAndObjects: what devices stored before a restart
// on the same folder is there after it: rows appended one by one and in
// bulk, an entity's merged row and its secret (readable: the key of
// secret columns is kept), error-logs with their ids going on, the
// UNIQUE (entity key, tsp) constraint; file objects put, uploaded and
// copied, and the presigned and permanent URLs made before the restart.
func TestRestartKeepsRowsAndObjects(t *testing.T) {
	leakcheck.Check(t)
	dir := filepath.Join(t.TempDir(), "data")
	w := openKeptWorld(t, dir, "")
	worldtest.Call(t, w.c, "append.2.26.readings", map[string]any{"tsp": worldtest.Ms(time.Second), "temp": 21.5, "n": 7, "label": "a",
		"payload": map[string]any{"k": []any{1.0, "x"}}}, w.meta(), false).OK(t, "append")
	worldtest.Call(t, w.c, "appendBulk.2.26.readings", []any{
		map[string]any{"tsp": worldtest.Ms(2 * time.Second), "temp": -3.25},
		map[string]any{"tsp": worldtest.Ms(3 * time.Second), "label": "c"},
	}, w.meta(), false).OK(t, "bulk")
	worldtest.Call(t, w.c, "append.2.26.credentials", map[string]any{"tsp": worldtest.Ms(time.Second), "machine": "m1", "state": "on", "api_key": "s3cret"}, w.meta(), false).OK(t, "secret")
	worldtest.Call(t, w.c, "append.2.26.credentials", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "machine": "m1", "state": "off", "api_key": SecretPlaceholder}, w.meta(), false).OK(t, "merge")
	if err := w.p.InsertRows(w.in, "error-logs", map[string]any{"tsp": worldtest.Ms(time.Second), "msg": "one"}, map[string]any{"tsp": worldtest.Ms(2 * time.Second), "msg": "two"}); err != nil {
		t.Fatal(err)
	}
	w.files(t, wire.FilesPut, map[string]any{"key": "a.txt", "data": worldtest.B64("hello")})
	up := w.files(t, wire.FilesWriteURL, map[string]any{"namespace": "photos", "key": "big.bin", "content_type": "application/octet-stream"})
	big := strings.Repeat("0123456789abcdef", 8192)
	if code, body, _ := worldtest.Do(t, http.MethodPut, up["url"].(string), strings.NewReader(big), int64(len(big)), map[string]string{"Content-Type": "application/octet-stream"}); code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, body)
	}
	w.files(t, wire.FilesCopy, map[string]any{"key": "a.txt", "to": "b.txt"})
	share := w.files(t, wire.FilesReadURL, map[string]any{"namespace": "photos", "key": "big.bin"})["url"].(string)
	sad := w.files(t, wire.FilesNamespaces, nil)["sad_key"]
	realm := w.in.Realm()
	tables := map[string][]map[string]any{}
	for _, table := range []string{"readings", "credentials", "error-logs"} {
		tables[table] = w.p.TableRows(realm, table)
	}
	objects := w.p.FileObjects(realm)
	addr := strings.TrimPrefix(w.p.HTTPURL(), "http://")
	w.p.Close()

	w = openKeptWorld(t, dir, addr)
	for table, rows := range tables {
		if diff := cmp.Diff(rows, w.p.TableRows(realm, table)); diff != "" {
			t.Errorf("%s after the restart (-before +after):\n%s", table, diff)
		}
	}
	creds := w.p.DecryptedTableRows(realm, "credentials")
	if len(creds) != 2 || creds[0]["api_key"] != "s3cret" || creds[1]["api_key"] != "s3cret" || creds[1]["state"] != "off" {
		t.Errorf("secrets after the restart: %v", creds)
	}
	latest := worldtest.Call(t, w.c, "history.transformed.credentials", worldtest.Q("limit", 10, "filterAnd", worldtest.List(worldtest.Pred("latest_flag", "=", true))), nil, false).OK(t, "latest").Rows(t)
	if len(latest) != 1 || latest[0]["state"] != "off" {
		t.Errorf("latest after the restart: %v", latest)
	}
	worldtest.Call(t, w.c, "append.2.26.credentials", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "machine": "m1", "state": "again"}, w.meta(), false).
		Refused(t, "the same entity and tsp after the restart", wire.ErrEntityKeyConflict)
	if err := w.p.InsertRows(w.in, "error-logs", map[string]any{"tsp": worldtest.Ms(3 * time.Second), "msg": "three"}); err != nil {
		t.Fatal(err)
	}
	if logs := w.p.TableRows(realm, "error-logs"); len(logs) != 3 || logs[2]["id"] != int64(3) {
		t.Errorf("error-logs after the restart: %v", logs)
	}
	if diff := cmp.Diff(objects, w.p.FileObjects(realm)); diff != "" {
		t.Errorf("objects after the restart (-before +after):\n%s", diff)
	}
	for _, o := range []struct{ ns, key, want string }{{"default", "a.txt", "hello"}, {"default", "b.txt", "hello"}, {"photos", "big.bin", big}} {
		if got, ok := w.p.FileContent(realm, o.ns, o.key); !ok || string(got) != o.want {
			t.Errorf("%s/%s after the restart: %d bytes, %v", o.ns, o.key, len(got), ok)
		}
	}
	if code, body, _ := worldtest.Do(t, http.MethodGet, share, nil, 0, nil); code != http.StatusOK || body != big {
		t.Errorf("read URL made before the restart: %d, %d bytes", code, len(body))
	}
	if got := w.files(t, wire.FilesNamespaces, nil)["sad_key"]; got != sad {
		t.Errorf("sad_key %v after the restart, was %v", got, sad)
	}
	serial := w.in.Device().Serial()
	req, _ := http.NewRequest(http.MethodGet, w.p.HTTPURL()+"/f/"+worldtest.Itoa(sad.(int64))+"/default/a.txt", nil)
	req.SetBasicAuth(serial, serial)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("permanent URL after the restart: %s", resp.Status)
	}
	http.DefaultClient.CloseIdleConnections()
}

// migrateSeed is a configuration whose app's template the migration test
// changes.
const migrateSeed = `
projects:
  - name: plant
    devices:
      - name: press
apps:
  - name: sensors
    data_template: |
      data:
        tables:
          - tablename: readings
            columns:
              - {id: tsp, name: T, dataType: timestamp}
              - {id: v, name: V, dataType: numeric}
              - {id: note, name: Note, dataType: string}
          - tablename: old
            columns:
              - {id: tsp, name: T, dataType: timestamp}
              - {id: x, name: X, dataType: numeric}
      files:
        namespaces:
          - name: default
          - name: photos
installations:
  - {project: plant, device: press, app: sensors}
`

// TestMigrateKeptData: a changed data template migrates what each store
// keeps. Allowed to drop, the reconciliation drops the removed table, the
// removed column and the retyped one (whose stored values go: it comes
// back empty), and the removed namespace with its objects; it adds a
// table and a column, NULL in the stored rows, and the realm serves the
// new table at once. A realm that leaves the configuration goes with its
// rows and objects.
func TestMigrateKeptData(t *testing.T) { backends.EachStore(t, testMigrateKeptData) }

func testMigrateKeptData(t *testing.T, s worldtest.Store[Option]) {
	p := New(t, s.Options(t)...)
	in := mustReconcile(t, p, migrateSeedOf(t)).Installations[0]
	realm := in.Realm()
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0, "v": 1, "note": "a"}, map[string]any{"tsp": worldtest.T0.Add(time.Second), "v": 2, "note": "b"}); err != nil {
		t.Fatal(err)
	}
	if err := p.InsertRows(in, "old", map[string]any{"tsp": worldtest.T0, "x": 1}); err != nil {
		t.Fatal(err)
	}
	p.StoreFile(realm, "default", "keep.txt", []byte("kept"), "text/plain")
	p.StoreFile(realm, "photos", "p.png", []byte("png"), "image/png")

	edits := []string{
		"              - {id: v, name: V, dataType: numeric}\n              - {id: note, name: Note, dataType: string}\n",
		"              - {id: v, name: V, dataType: string}\n              - {id: w, name: W, dataType: string}\n",
		"          - tablename: old\n            columns:\n              - {id: tsp, name: T, dataType: timestamp}\n              - {id: x, name: X, dataType: numeric}\n",
		"          - tablename: fresh\n            columns:\n              - {id: tsp, name: T, dataType: timestamp}\n",
		"          - name: photos\n", "",
	}
	mustReconcile(t, p, migrateSeedOf(t, edits...), AllowDrop())
	rows := p.TableRows(realm, "readings")
	want := []map[string]any{
		{"tsp": worldtest.ISO(0), "v": nil, "w": nil, "device_key": int64(in.Device().Key()), "authid": in.Device().Serial()},
		{"tsp": worldtest.ISO(time.Second), "v": nil, "w": nil, "device_key": int64(in.Device().Key()), "authid": in.Device().Serial()},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("readings after the migration (-want +got):\n%s", diff)
	}
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0.Add(2 * time.Second), "v": "two", "w": "new"}); err != nil {
		t.Errorf("a row of the new columns: %v", err)
	}
	if err := p.InsertRows(in, "old", map[string]any{"tsp": worldtest.T0}); err == nil {
		t.Error("the removed table took a row")
	}
	objects := p.FileObjects(realm)
	if len(objects) != 1 || objects[0].Key != "keep.txt" {
		t.Errorf("objects after the migration: %+v", objects)
	}
	c := worldtest.Connect(t, p, in, client.JSON)
	if got := worldtest.Call(t, c, "history.transformed.fresh", worldtest.Q("limit", 10), nil, false).OK(t, "history of the new table").Rows(t); len(got) != 0 {
		t.Errorf("the new table holds %v", got)
	}
	worldtest.Call(t, c, "history.transformed.old", worldtest.Q("limit", 10), nil, false).Refused(t, "history of the removed table", "wamp.error.no_such_procedure")

	mustReconcile(t, p, migrateSeedOf(t, append(edits, "installations:\n  - {project: plant, device: press, app: sensors}\n", "installations: []\n")...))
	st := p.storage()
	if st.Rows != 0 || st.Objects != 0 || st.Err != "" {
		t.Errorf("after the realm went: %d rows, %d objects kept (%s)", st.Rows, st.Objects, st.Err)
	}
}

// TestRestartWithChangedTemplate: a platform started again on its folder
// with a configuration whose data template adds a column and a file
// namespace (as flockd does at start with an edited config file) serves
// them at once: a file goes into the new namespace, a row with the new
// column is stored and read back, through the platform and over WAMP;
// the rows and objects of before stay.
func TestRestartWithChangedTemplate(t *testing.T) {
	leakcheck.Check(t)
	dir := filepath.Join(t.TempDir(), "data")
	p := New(t, WithDataDir(dir))
	in := mustReconcile(t, p, migrateSeedOf(t)).Installations[0]
	realm := in.Realm()
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0, "v": 1, "note": "a"}); err != nil {
		t.Fatal(err)
	}
	p.StoreFile(realm, "photos", "p.png", []byte("png"), "image/png")
	p.Close()

	p = New(t, WithDataDir(dir))
	in = mustReconcile(t, p, migrateSeedOf(t,
		"              - {id: note, name: Note, dataType: string}\n",
		"              - {id: note, name: Note, dataType: string}\n              - {id: w, name: W, dataType: string}\n",
		"          - name: photos\n", "          - name: photos\n          - name: snapshots\n",
	)).Installations[0]
	if in.Realm() != realm {
		t.Fatalf("realm %s after the restart, was %s", in.Realm(), realm)
	}
	p.StoreFile(realm, "snapshots", "s.json", []byte("{}"), "application/json")
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0.Add(time.Second), "v": 2, "note": "b", "w": "new"}); err != nil {
		t.Fatalf("a row of the new column: %v", err)
	}
	dev := map[string]any{"device_key": int64(in.Device().Key()), "authid": in.Device().Serial()}
	row := func(sec int, v int64, note string, w any) map[string]any {
		r := map[string]any{"tsp": worldtest.ISO(time.Duration(sec) * time.Second), "v": v, "note": note, "w": w}
		for k, x := range dev {
			r[k] = x
		}
		return r
	}
	if diff := cmp.Diff([]map[string]any{row(0, 1, "a", nil), row(1, 2, "b", "new")}, p.TableRows(realm, "readings")); diff != "" {
		t.Errorf("readings after the restart (-want +got):\n%s", diff)
	}
	var keys []string
	for _, o := range p.FileObjects(realm) {
		keys = append(keys, o.Namespace+"/"+o.Key)
	}
	if !cmp.Equal(keys, []string{"photos/p.png", "snapshots/s.json"}) {
		t.Errorf("objects after the restart: %v", keys)
	}
	if got, ok := p.FileContent(realm, "photos", "p.png"); !ok || string(got) != "png" {
		t.Errorf("photos/p.png after the restart: %q, %v", got, ok)
	}

	c := worldtest.Connect(t, p, in, client.JSON)
	meta := map[string]any{"DEVICE_SERIAL_NUMBER": in.Device().Serial()}
	worldtest.Call(t, c, wire.AppendProc(in.Device().Project().Key(), in.App().Key(), "readings"),
		map[string]any{"tsp": worldtest.Ms(2 * time.Second), "v": 3.0, "w": "wamp"}, meta, false).OK(t, "append of the new column")
	rows := worldtest.Call(t, c, "history.transformed.readings", worldtest.Q("limit", 1), nil, false).OK(t, "history").Rows(t)
	if len(rows) != 1 || rows[0]["w"] != "wamp" {
		t.Errorf("history of the new column: %v", rows)
	}
	env := worldtest.Call(t, c, wire.FilesPut, map[string]any{"namespace": "snapshots", "key": "w.txt", "data": worldtest.B64("over wamp")}, nil, false).OK(t, "put").Args[0].(map[string]any)
	if env["success"] != true {
		t.Errorf("put into the new namespace: %v", env)
	}
}

// migrateSeedOf parses migrateSeed with edits (pairs of old and new).
func migrateSeedOf(t *testing.T, edits ...string) *Seed {
	t.Helper()
	return editedSeed(t, migrateSeed, edits...)
}

// blobFiles returns the paths of the blobs in the blob folder of dir.
func blobFiles(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "files", "??", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestBlobsCheckedAtStart: at start the file objects' records and their
// content are checked against each other: what a kill can leave (a blob
// without record, a half-written file) is removed, with a log line, and
// flockd check reports it; a record whose blob is missing or of another
// size is a damaged folder, refused by start and check naming the blob
// and its object.
func TestBlobsCheckedAtStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	w := openKeptWorld(t, dir, "")
	realm := w.in.Realm()
	w.p.StoreFile(realm, "default", "a.txt", []byte("hello"), "text/plain")
	w.p.StoreFile(realm, "photos", "b.png", []byte("png!"), "image/png")
	w.p.Close()
	blobs := blobFiles(t, dir)
	if len(blobs) != 2 {
		t.Fatalf("blobs %v", blobs)
	}

	orphan := filepath.Join(dir, "files", "ab", "ab"+strings.Repeat("0", 30))
	if err := os.MkdirAll(filepath.Dir(orphan), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{orphan, filepath.Join(dir, "files", ".tmp-123")} {
		if err := os.WriteFile(path, []byte("left by a kill"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := CheckDataDir(dir)
	if err != nil || rep.LeftBlobs != 2 || rep.Objects != 2 || rep.ObjectBytes != 9 {
		t.Fatalf("check: %+v, %v", rep, err)
	}
	logs := &worldtest.SyncBuffer{}
	p := New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	if len(p.FileObjects(realm)) != 2 || len(blobFiles(t, dir)) != 2 || !strings.Contains(logs.String(), "blobs=1 half_written=1") {
		t.Errorf("after the start: %d objects, blobs %v, log:\n%s", len(p.FileObjects(realm)), blobFiles(t, dir), logs)
	}
	p.Close()

	for name, tc := range map[string]struct {
		damage func(path string) error
		want   string
	}{
		"missing":   {os.Remove, ": missing, the content of object"},
		"truncated": {func(path string) error { return os.Truncate(path, 2) }, ": holds 2 bytes, its record "},
	} {
		t.Run(name, func(t *testing.T) {
			path := blobFiles(t, dir)[0]
			kept, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.damage(path); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := os.WriteFile(path, kept, 0o600); err != nil {
					t.Fatal(err)
				}
			}()
			rel, _ := filepath.Rel(dir, path)
			want := dir + ": " + rel + tc.want
			p, err := Start(WithDataDir(dir))
			if err == nil {
				p.Close()
			}
			if err == nil || !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "of "+realm) {
				t.Errorf("start: %v, want %q", err, want)
			}
			if _, err := CheckDataDir(dir); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("check: %v, want %q", err, want)
			}
		})
	}
}

// TestDiskFull: while the data folder's disk is full, appends (single and
// bulk) are refused with storage_full, file writes with INTERNAL saying
// the store is full (an upload URL with 507 XMinioStorageFull), and
// nothing of them is kept; reads go on; once there is room again writes
// succeed.
func TestDiskFull(t *testing.T) {
	leakcheck.Check(t)
	w := openKeptWorld(t, filepath.Join(t.TempDir(), "data"), "")
	appendRow := func(sec int) worldtest.CallResult {
		return worldtest.Call(t, w.c, "append.2.26.readings", map[string]any{"tsp": worldtest.Ms(time.Duration(sec) * time.Second), "temp": 1.0}, w.meta(), false)
	}
	appendRow(1).OK(t, "append before")
	w.files(t, wire.FilesPut, map[string]any{"key": "before.txt", "data": worldtest.B64("x")})
	up := w.files(t, wire.FilesWriteURL, map[string]any{"key": "up.txt", "content_type": "text/plain"})["url"].(string)

	w.p.data.SimulateFull(true)
	appendRow(2).Refused(t, "append on a full disk", wire.ErrStorageFull)
	worldtest.Call(t, w.c, "appendBulk.2.26.readings", []any{map[string]any{"tsp": worldtest.Ms(3 * time.Second)}}, w.meta(), false).
		Refused(t, "bulk append on a full disk", wire.ErrStorageFull)
	env := worldtest.Call(t, w.c, wire.FilesPut, map[string]any{"key": "full.txt", "data": worldtest.B64("y")}, nil, false).OK(t, "put").Args[0].(map[string]any)
	if env["success"] != false || env["code"] != wire.FileInternal || !strings.Contains(env["reason"].(string), "the object store is full") {
		t.Errorf("put on a full disk: %v", env)
	}
	env = worldtest.Call(t, w.c, wire.FilesCopy, map[string]any{"key": "before.txt", "to": "copy.txt"}, nil, false).OK(t, "copy").Args[0].(map[string]any)
	if env["success"] != false || env["code"] != wire.FileInternal {
		t.Errorf("copy on a full disk: %v", env)
	}
	code, body, _ := worldtest.Do(t, http.MethodPut, up, strings.NewReader("zz"), 2, map[string]string{"Content-Type": "text/plain"})
	if code != http.StatusInsufficientStorage || !strings.Contains(body, "XMinioStorageFull") {
		t.Errorf("upload on a full disk: %d %s", code, body)
	}
	if rows := worldtest.Call(t, w.c, "history.transformed.readings", worldtest.Q("limit", 10), nil, false).OK(t, "read on a full disk").Rows(t); len(rows) != 1 {
		t.Errorf("read on a full disk: %v", rows)
	}
	if got := w.files(t, wire.FilesGet, map[string]any{"key": "before.txt"}); got["data"] != worldtest.B64("x") {
		t.Errorf("file read on a full disk: %v", got)
	}
	if objs := w.p.FileObjects(w.in.Realm()); len(objs) != 1 {
		t.Errorf("objects after the refused writes: %+v", objs)
	}
	blobs, err := w.p.data.Blobs(folder.BlobFolder)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := blobs.Temps(); err != nil || n != 0 || len(blobFiles(t, w.p.DataDir())) != 1 {
		t.Errorf("the refused writes left %d temporary files (%v), blobs %v", n, err, blobFiles(t, w.p.DataDir()))
	}

	w.p.data.SimulateFull(false)
	appendRow(2).OK(t, "append once there is room")
	w.files(t, wire.FilesPut, map[string]any{"key": "full.txt", "data": worldtest.B64("y")})
	if code, body, _ := worldtest.Do(t, http.MethodPut, up, strings.NewReader("zz"), 2, map[string]string{"Content-Type": "text/plain"}); code != http.StatusOK {
		t.Errorf("upload once there is room: %d %s", code, body)
	}
	if rows := w.p.TableRows(w.in.Realm(), "readings"); len(rows) != 2 {
		t.Errorf("rows: %v", rows)
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestMemoryRowLimit: without a data folder the rows kept in memory are
// bounded: an append past the bound is refused with storage_full (reads
// go on), the log says so once, and the console's overview shows it.
func TestMemoryRowLimit(t *testing.T) {
	leakcheck.Check(t)
	logs := &worldtest.SyncBuffer{}
	p := New(t, WithMemoryRowLimit(3), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	in := p.Install(p.AddDevice("press"), p.AddApp("interop", keepTemplate), Dev)
	c := worldtest.Connect(t, p, in, client.JSON)
	meta := map[string]any{"DEVICE_SERIAL_NUMBER": in.Device().Serial()}
	proc := wire.AppendProc(in.Device().Project().Key(), in.App().Key(), "readings")
	worldtest.Call(t, c, wire.AppendBulkProc(in.Device().Project().Key(), in.App().Key(), "readings"), []any{
		map[string]any{"tsp": worldtest.Ms(time.Second)}, map[string]any{"tsp": worldtest.Ms(2 * time.Second)},
	}, meta, false).OK(t, "two rows")
	worldtest.Call(t, c, proc, map[string]any{"tsp": worldtest.Ms(3 * time.Second)}, meta, false).OK(t, "the third row")
	for i := range 3 {
		worldtest.Call(t, c, proc, map[string]any{"tsp": worldtest.Ms(time.Duration(4+i) * time.Second)}, meta, false).Refused(t, "past the bound", wire.ErrStorageFull)
	}
	if rows := worldtest.Call(t, c, "history.transformed.readings", worldtest.Q("limit", 10), nil, false).OK(t, "read").Rows(t); len(rows) != 3 {
		t.Errorf("read at the bound: %d rows", len(rows))
	}
	if n := strings.Count(logs.String(), "in-memory store full"); n != 1 {
		t.Errorf("%d log lines of the bound:\n%s", n, logs)
	}
	if st := p.storage(); st.Rows != 3 || st.RowLimit != 3 || !st.Full {
		t.Errorf("storage on the overview: %+v", st)
	}
}

// TestFilesRetention: objects of a namespace with retention go, with
// their content, once older than it allows on the platform clock; other
// namespaces keep theirs.
func TestFilesRetention(t *testing.T) { backends.EachFileStore(t, testFilesRetention) }

func testFilesRetention(t *testing.T, s worldtest.Store[Option]) {
	p := New(t, s.Options(t)...)
	in := p.Install(p.AddDevice("press"), p.AddApp("plant", `
data:
  tables: []
files:
  namespaces:
    - name: default
    - name: logs
      retention: {deleteAfter: "1 day"}
`), Dev)
	realm := in.Realm()
	p.StoreFile(realm, "logs", "old.log", []byte("old"), "")
	p.StoreFile(realm, "default", "kept.txt", []byte("kept"), "")
	p.Clock().Advance(12 * time.Hour)
	p.StoreFile(realm, "logs", "newer.log", []byte("newer"), "")
	p.Clock().Advance(12 * time.Hour)
	var keys []string
	for _, o := range p.FileObjects(realm) {
		keys = append(keys, o.Namespace+"/"+o.Key)
	}
	if !cmp.Equal(keys, []string{"default/kept.txt", "logs/newer.log"}) {
		t.Errorf("objects after a day: %v", keys)
	}
	if dir := p.DataDir(); dir != "" {
		if n := len(blobFiles(t, dir)); n != 2 {
			t.Errorf("%d blobs after a day, want 2", n)
		}
	}
}
