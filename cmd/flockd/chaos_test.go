package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	sdk "github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
)

// chaosConfig is the world of the chaos test: one app with one table,
// installed on one device.
const chaosConfig = `projects:
  - name: plant
    devices: [{name: press}]
apps:
  - name: chaos
    data_template: |
      data:
        tables:
          - tablename: events
            columns:
              - {id: tsp, name: T, dataType: timestamp}
              - {id: wid, name: Write, dataType: string}
installations:
  - {project: plant, device: press, app: chaos}
users:
  - name: alice
    projects: {plant: admin}
`

// chaosKills is how many times the chaos test kills flockd.
const chaosKills = 20

// TestChaosKill: writers append rows (one by one and in bulk) and put
// files (inline and through upload URLs) against a flockd with a data
// folder while it is killed with SIGKILL and started again on the same
// folder and port, chaosKills times. Afterwards every acknowledged row
// and object is there exactly once, a bulk whose answer was lost is there
// whole or not at all, an object whose answer was lost is whole or
// absent, no row is there twice, and the credentials and tokens never
// changed.
func TestChaosKill(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	config := writeConfig(t, dir, chaosConfig)
	envPath := filepath.Join(dir, "env.json")
	args := func(listen string) []string {
		return []string{"-listen", listen, "-config", config, "-data", filepath.Join(dir, "data"), "-env-file", envPath, "-no-record", "-no-console"}
	}
	proc := startChild(t, args("127.0.0.1:0"))
	first := readEnvFile(t, envPath)
	listen := strings.TrimPrefix(first.HTTPURL, "http://")
	life := &lifeline{env: first, gen: 1, up: true, wake: make(chan struct{})}
	led := newLedger()
	var wg sync.WaitGroup
	for _, w := range []writer{singleWriter(1), singleWriter(2), bulkWriter{}, fileWriter{}} {
		wg.Go(func() { runWriter(ctx, life, led, w) })
	}
	for range chaosKills {
		if !led.waitProgress(ctx, 8) {
			t.Fatalf("no progress before a kill: %s", led)
		}
		proc.kill()
		life.change(nil)
		proc = startChild(t, args(listen))
		f := readEnvFile(t, envPath)
		envs1, tokens1 := stable(first)
		envs2, tokens2 := stable(f)
		if !cmp.Equal(envs1, envs2) || !cmp.Equal(tokens1, tokens2) {
			t.Fatalf("credentials changed after a restart:\n%s%s", cmp.Diff(envs1, envs2), cmp.Diff(tokens1, tokens2))
		}
		life.change(&f)
	}
	if !led.waitProgress(ctx, 8) {
		t.Fatalf("no progress after the last restart: %s", led)
	}
	life.stop()
	wg.Wait()
	t.Logf("%s, over %d kills", led, chaosKills)
	led.verify(ctx, t, first)
}

// readEnvFile reads flockd's environment file.
func readEnvFile(t testing.TB, path string) envFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f envFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("env file: %v\n%s", err, b)
	}
	return f
}

// lifeline tells the writers when flockd serves: its generation (one per
// start) and environment.
type lifeline struct {
	mu      sync.Mutex
	gen     int
	env     envFile
	up      bool
	stopped bool
	wake    chan struct{} // closed and replaced at every change
}

// change marks flockd down (env nil) or serving a new generation.
func (l *lifeline) change(env *envFile) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if env != nil {
		l.gen++
		l.env = *env
	}
	l.up = env != nil
	close(l.wake)
	l.wake = make(chan struct{})
}

// stop tells the writers to end.
func (l *lifeline) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	close(l.wake)
	l.wake = make(chan struct{})
}

func (l *lifeline) isStopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}

// next waits until a generation after gen serves and returns it; false
// when the writers are to end.
func (l *lifeline) next(ctx context.Context, after int) (int, envFile, bool) {
	for {
		l.mu.Lock()
		gen, env, up, stopped, wake := l.gen, l.env, l.up, l.stopped, l.wake
		l.mu.Unlock()
		switch {
		case stopped:
			return 0, envFile{}, false
		case up && gen > after:
			return gen, env, true
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return 0, envFile{}, false
		}
	}
}

// ledger records what the writers were told: what was acknowledged, and
// what was sent without an answer.
type ledger struct {
	mu        sync.Mutex
	acked     map[string]bool   // row ids
	lost      map[string]bool   // row ids sent without an answer
	lostBulks [][]string        // the ids of each bulk without an answer
	files     map[string]string // acknowledged objects: key → content
	lostFiles map[string]string
	count     int
	progress  chan struct{} // gets a token at every acknowledgement
}

func newLedger() *ledger {
	return &ledger{acked: map[string]bool{}, lost: map[string]bool{}, files: map[string]string{}, lostFiles: map[string]string{},
		progress: make(chan struct{}, 1)}
}

func (l *ledger) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%d rows and %d objects acknowledged, %d rows (%d bulks) and %d objects without an answer",
		len(l.acked), len(l.files), len(l.lost), len(l.lostBulks), len(l.lostFiles))
}

// rows records the outcome of a write of rows.
func (l *ledger) rows(ids []string, acked bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if acked {
			l.acked[id] = true
		} else {
			l.lost[id] = true
		}
	}
	if !acked && len(ids) > 1 {
		l.lostBulks = append(l.lostBulks, ids)
	}
	if acked {
		l.ackedLocked()
	}
}

// file records the outcome of a write of an object.
func (l *ledger) file(key, content string, acked bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if acked {
		l.files[key] = content
		l.ackedLocked()
	} else {
		l.lostFiles[key] = content
	}
}

func (l *ledger) ackedLocked() {
	l.count++
	select {
	case l.progress <- struct{}{}:
	default:
	}
}

// waitProgress waits until n more writes are acknowledged.
func (l *ledger) waitProgress(ctx context.Context, n int) bool {
	l.mu.Lock()
	target := l.count + n
	l.mu.Unlock()
	for {
		l.mu.Lock()
		done := l.count >= target
		l.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-l.progress:
		case <-ctx.Done():
			return false
		}
	}
}

// writer is one kind of write; write does one on c and reports it to
// led. An error means the connection is lost.
type writer interface {
	write(ctx context.Context, c *sdk.Client, f envFile, led *ledger, n int) error
}

// runWriter writes until the lifeline stops, with a new client for each
// generation of flockd.
func runWriter(ctx context.Context, life *lifeline, led *ledger, w writer) {
	gen, n := 0, 0
	for {
		g, f, ok := life.next(ctx, gen)
		if !ok {
			return
		}
		gen = g
		c, err := dialEnv(ctx, f)
		if err != nil {
			continue // killed meanwhile: wait for the next start
		}
		for !life.isStopped() {
			n++
			if err := w.write(ctx, c, f, led, n); err != nil {
				break
			}
		}
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_ = c.Stop(stopCtx)
		cancel()
		if life.isStopped() {
			return
		}
	}
}

// dialEnv joins the installation of f as its device app does, with the
// SDK: unlike nexus's client, whose Call can block for ever sending on a
// link whose writer died with a killed router, every call of the SDK ends
// with its context, and a call whose answer the link lost says so
// (ErrOutcomeUnknown).
func dialEnv(ctx context.Context, f envFile) (*sdk.Client, error) {
	c, err := sdk.New(sdk.WithEnv(f.Installations[0].Env), sdk.WithURL(f.WSURL),
		sdk.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		_ = c.Stop(ctx)
		return nil, err
	}
	return c, nil
}

// appendProc returns the append or bulk procedure of a table of the
// installation of f.
func appendProc(f envFile, table string, bulk bool) string {
	env := f.Installations[0].Env
	swarm, _ := strconv.Atoi(env[wire.EnvSwarmKey])
	app, _ := strconv.Atoi(env[wire.EnvAppKey])
	if bulk {
		return wire.AppendBulkProc(swarm, app, table)
	}
	return wire.AppendProc(swarm, app, table)
}

// callOnce calls proc once; done is false when the answer was lost (or
// never came: the call may have been stored).
func callOnce(ctx context.Context, c *sdk.Client, proc string, arg any) (res *sdk.Result, done bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err = c.Call(ctx, proc, arg)
	var refused *sdk.WampError
	if errors.As(err, &refused) {
		return nil, true, fmt.Errorf("%s refused: %w", proc, err)
	}
	return res, err == nil, err
}

// singleWriter appends one row at a time.
type singleWriter int

func (w singleWriter) write(ctx context.Context, c *sdk.Client, f envFile, led *ledger, n int) error {
	id := fmt.Sprintf("s%d-%d", int(w), n)
	_, done, err := callOnce(ctx, c, appendProc(f, "events", false), map[string]any{"tsp": time.Now().UnixMilli(), "wid": id})
	led.rows([]string{id}, done && err == nil)
	return err
}

// bulkWriter appends five rows at a time.
type bulkWriter struct{}

func (bulkWriter) write(ctx context.Context, c *sdk.Client, f envFile, led *ledger, n int) error {
	var ids []string
	var rows []any
	for k := range 5 {
		id := fmt.Sprintf("b%d-%d", n, k)
		ids = append(ids, id)
		rows = append(rows, map[string]any{"tsp": time.Now().UnixMilli(), "wid": id})
	}
	_, done, err := callOnce(ctx, c, appendProc(f, "events", true), rows)
	led.rows(ids, done && err == nil)
	return err
}

// fileWriter puts objects, every third through an upload URL.
type fileWriter struct{}

func (fileWriter) write(ctx context.Context, c *sdk.Client, f envFile, led *ledger, n int) error {
	key := fmt.Sprintf("f-%d.txt", n)
	content := strings.Repeat(fmt.Sprintf("object %d;", n), 200)
	if n%3 != 0 {
		res, _, err := callOnce(ctx, c, wire.FilesPut, map[string]any{"key": key, "data": base64.StdEncoding.EncodeToString([]byte(content))})
		ok := err == nil && filesOK(res)
		led.file(key, content, ok)
		if err == nil && !ok {
			return fmt.Errorf("put %s refused: %v", key, res.Args)
		}
		return err
	}
	res, _, err := callOnce(ctx, c, wire.FilesWriteURL, map[string]any{"key": key, "content_type": "text/plain"})
	if err != nil || !filesOK(res) {
		return fmt.Errorf("upload URL of %s: %v", key, err)
	}
	url, _ := res.Args[0].(map[string]any)["payload"].(map[string]any)["url"].(string)
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, strings.NewReader(content))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		led.file(key, content, false)
		return err
	}
	_ = resp.Body.Close()
	led.file(key, content, resp.StatusCode == http.StatusOK)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upload of %s: %s", key, resp.Status)
	}
	return nil
}

// filesOK reports a files.* answer of success.
func filesOK(res *sdk.Result) bool {
	if res == nil || len(res.Args) == 0 {
		return false
	}
	env, _ := res.Args[0].(map[string]any)
	return env["success"] == true
}

// verify reads every row and object from the flockd serving f and checks
// them against what the writers were told.
func (l *ledger) verify(ctx context.Context, t *testing.T, f envFile) {
	t.Helper()
	c := joinWithEnv(t, f.WSURL, f.Installations[0].Env)
	seen := map[string]int{}
	for offset := 0; ; offset += 10000 {
		res, err := c.Call(ctx, wire.HistoryProc("events"), nil, wamp.List{map[string]any{"limit": 10000, "offset": offset}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var rows []any
		if len(res.Arguments) > 0 {
			rows, _ = res.Arguments[0].([]any)
		}
		for _, r := range rows {
			id, _ := r.(map[string]any)["wid"].(string)
			seen[id]++
		}
		if len(rows) < 10000 {
			break
		}
	}
	for id := range l.acked {
		if seen[id] != 1 {
			t.Errorf("acknowledged row %s is there %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if n > 1 || (!l.acked[id] && !l.lost[id]) {
			t.Errorf("row %s is there %d times; acknowledged %v, sent %v", id, n, l.acked[id], l.lost[id])
		}
	}
	for _, ids := range l.lostBulks {
		n := 0
		for _, id := range ids {
			n += seen[id]
		}
		if n != 0 && n != len(ids) {
			t.Errorf("a bulk whose answer was lost is there in part: %d of %v", n, ids)
		}
	}
	for key, content := range l.files {
		if got, ok := getFile(ctx, t, c, key); !ok || got != content {
			t.Errorf("acknowledged object %s: %v, %d bytes, want %d", key, ok, len(got), len(content))
		}
	}
	for key, content := range l.lostFiles {
		if got, ok := getFile(ctx, t, c, key); ok && got != content && l.files[key] == "" {
			t.Errorf("object %s whose answer was lost holds %d bytes that are not its content", key, len(got))
		}
	}
}

// getFile reads an object; false when it does not exist.
func getFile(ctx context.Context, t *testing.T, c *client.Client, key string) (string, bool) {
	t.Helper()
	res, err := c.Call(ctx, wire.FilesGet, nil, wamp.List{map[string]any{"key": key}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := res.Arguments[0].(map[string]any)
	if env["success"] != true {
		if env["code"] != wire.FileNoSuchObject {
			t.Errorf("get %s: %v", key, env)
		}
		return "", false
	}
	data, _ := env["payload"].(map[string]any)["data"].(string)
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Errorf("get %s: %v", key, err)
	}
	return string(b), true
}
