package fleetdb_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ifclient "github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// pgProxy forwards TCP connections to the PostgreSQL server of the tests,
// so that a test can take the server away from a platform and give it
// back without touching the server: refuse new connections (down), cut
// the open ones, or cut the connection that forwards some more bytes
// from its client, or lose the server's answer to the next request
// (loseNextAnswer).
type pgProxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	url    string // the test database's URL through the proxy

	mu       sync.Mutex
	up       bool
	pairs    map[*proxyPair]struct{}
	cutAfter int64 // > 0: cut the connection that forwards this many more client bytes
	lose     bool  // the next connection that forwards client bytes loses its answer
	refused  chan struct{}
	wg       sync.WaitGroup
}

// proxyPair is a forwarded connection.
type proxyPair struct {
	client, server net.Conn
	lose           atomic.Bool // cut instead of forwarding the server's next bytes
}

func (pp *proxyPair) close() {
	_ = pp.client.Close()
	_ = pp.server.Close()
}

func newPGProxy(t *testing.T, dbURL string) *pgProxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &pgProxy{t: t, ln: ln, target: u.Host, pairs: map[*proxyPair]struct{}{}, refused: make(chan struct{}, 1), up: true}
	u.Host = ln.Addr().String()
	px.url = u.String()
	px.wg.Add(1)
	go px.accept()
	t.Cleanup(func() {
		_ = ln.Close()
		px.setUp(false)
		px.wg.Wait()
	})
	return px
}

func (px *pgProxy) accept() {
	defer px.wg.Done()
	for {
		c, err := px.ln.Accept()
		if err != nil {
			return
		}
		px.mu.Lock()
		up := px.up
		px.mu.Unlock()
		if !up {
			_ = c.Close()
			select {
			case px.refused <- struct{}{}:
			default:
			}
			continue
		}
		s, err := net.Dial("tcp", px.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		pp := &proxyPair{client: c, server: s}
		px.mu.Lock()
		px.pairs[pp] = struct{}{}
		px.mu.Unlock()
		px.wg.Add(2)
		go px.pipe(pp, s, c, true)
		go px.pipe(pp, c, s, false)
	}
}

// pipe copies src to dst until either ends; upstream counts the client's
// bytes against cutAfter.
func (px *pgProxy) pipe(pp *proxyPair, dst, src net.Conn, upstream bool) {
	defer px.wg.Done()
	defer func() {
		pp.close()
		px.mu.Lock()
		delete(px.pairs, pp)
		px.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	var scan *pgScan // the server's messages, once its answer is to be lost
	for {
		n, err := src.Read(buf)
		if n > 0 && upstream {
			px.mu.Lock()
			cut := false
			if px.cutAfter > 0 {
				px.cutAfter -= int64(n)
				cut = px.cutAfter <= 0
			}
			if px.lose {
				px.lose = false
				pp.lose.Store(true)
			}
			px.mu.Unlock()
			if cut {
				return
			}
		}
		if n > 0 && !upstream && pp.lose.Load() {
			if scan == nil {
				scan = &pgScan{}
			}
			if scan.commandComplete(buf[:n]) {
				return // the statement's answer, sent once it is committed: lost
			}
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// pgScan reads the server's side of a connection as PostgreSQL messages
// (a type byte, a 4-byte length that counts itself, the body), from a
// message's start.
type pgScan struct {
	skip int    // bytes left of the current message's body
	hdr  []byte // the current message's header so far
}

// commandComplete reports whether b starts a CommandComplete message ('C'),
// which the server sends for a statement it ran (an implicit transaction's
// once it is committed, at Sync); the messages before it (a COPY's
// CopyInResponse, a ping's answer) pass.
func (s *pgScan) commandComplete(b []byte) bool {
	for len(b) > 0 {
		if s.skip > 0 {
			n := min(s.skip, len(b))
			s.skip, b = s.skip-n, b[n:]
			continue
		}
		n := min(5-len(s.hdr), len(b))
		s.hdr, b = append(s.hdr, b[:n]...), b[n:]
		if len(s.hdr) < 5 {
			return false
		}
		if s.hdr[0] == 'C' {
			return true
		}
		s.skip, s.hdr = int(binary.BigEndian.Uint32(s.hdr[1:]))-4, s.hdr[:0]
	}
	return false
}

// setUp lets new connections through (true), or refuses them and cuts
// the open ones (false).
func (px *pgProxy) setUp(up bool) {
	px.mu.Lock()
	px.up = up
	var open []*proxyPair
	if !up {
		for pp := range px.pairs {
			open = append(open, pp)
		}
	}
	px.mu.Unlock()
	for _, pp := range open {
		pp.close()
	}
}

// cutAfterBytes cuts the connection that forwards n more bytes from its
// client.
func (px *pgProxy) cutAfterBytes(n int64) {
	px.mu.Lock()
	px.cutAfter = n
	px.mu.Unlock()
}

// loseNextAnswer makes the next connection that forwards a request to the
// server lose the server's answer: the request is served (committed) and
// the connection cut before its answer reaches the client.
func (px *pgProxy) loseNextAnswer() {
	px.mu.Lock()
	px.lose = true
	px.mu.Unlock()
}

// serverPorts returns the local ports of the proxy's connections to the
// server: their client_port in pg_stat_activity.
func (px *pgProxy) serverPorts() []int32 {
	px.mu.Lock()
	defer px.mu.Unlock()
	var out []int32
	for pp := range px.pairs {
		out = append(out, int32(pp.server.LocalAddr().(*net.TCPAddr).Port))
	}
	return out
}

// TestPostgresDownAtStart: a server that cannot be reached fails Start
// with a message that names it; PostgresWait waits for it to come.
func TestPostgresDownAtStart(t *testing.T) { worldtest.EachPostgres(t, testPostgresDownAtStart) }

func testPostgresDownAtStart(t *testing.T, dbURL string) {
	px := newPGProxy(t, dbURL)
	px.setUp(false)
	_, err := platformtest.Start(platformtest.WithPostgres(px.url, platformtest.PostgresScratch()))
	if err == nil || !strings.Contains(err.Error(), "cannot reach the server at "+px.ln.Addr().String()) {
		t.Fatalf("Start with the server down: %v", err)
	}
	type started struct {
		p   *platformtest.Platform
		err error
	}
	done := make(chan started, 1)
	go func() {
		p, err := platformtest.Start(platformtest.WithPostgres(px.url, platformtest.PostgresScratch(), platformtest.PostgresWait(time.Minute)))
		done <- started{p, err}
	}()
	<-px.refused // the platform is waiting
	px.setUp(true)
	s := <-done
	if s.err != nil {
		t.Fatalf("Start waiting for the server: %v", s.err)
	}
	s.p.Close()
}

// TestPostgresLost: while the server is gone, appends answer the
// platform's storage error (runtime_error with a Postgres-like object) or,
// when the request had left on a connection that then ended,
// outcome_unknown, never success, and reads fail with the storage error;
// once it is back, the
// platform reconnects by itself. A bulk append cut off half-way, or whose
// server connection is terminated, stores nothing. Every acknowledged
// row is stored, and only those.
func TestPostgresLost(t *testing.T) { worldtest.EachPostgres(t, testPostgresLost) }

func testPostgresLost(t *testing.T, dbURL string) {
	leakcheck.Check(t)
	px := newPGProxy(t, dbURL)
	w := newPGWorld(t, px.url, readerTemplate)
	acked := 0
	appendRow := func() worldtest.CallResult {
		t.Helper()
		r := worldtest.Call(t, w.c, "append.2.26.readings", map[string]any{"tsp": worldtest.Ms(time.Duration(acked+1) * time.Second), "temp": 20}, nil, false)
		if r.ErrURI == "" {
			acked++
		}
		return r
	}
	isStorageError := func(what string, r worldtest.CallResult) {
		t.Helper()
		if r.ErrURI != wire.ErrRuntimeError || len(r.ErrArgs) != 1 {
			t.Fatalf("%s: %q %v (args %v), want runtime_error with a Postgres-like object", what, r.ErrURI, r.ErrArgs, r.Args)
		}
		obj, _ := r.ErrArgs[0].(map[string]any)
		if obj["name"] != "error" || obj["severity"] != "ERROR" || obj["code"] == nil {
			t.Fatalf("%s: %v is not a Postgres-like object", what, r.ErrArgs)
		}
	}
	// An append that left on a connection that then ended may be stored
	// or not: outcome_unknown is the truth then (the counts below check
	// that none of them was stored).
	isWriteError := func(what string, r worldtest.CallResult) {
		t.Helper()
		if r.ErrURI != wire.ErrOutcomeUnknown {
			isStorageError(what, r)
		}
	}
	appendRow().OK(t, "append")

	px.setUp(false)
	isWriteError("append while the server is gone", appendRow())
	isWriteError("append while the server is gone, again", appendRow())
	isStorageError("history while the server is gone", worldtest.Call(t, w.c, "history.transformed.readings", worldtest.Q("limit", 10), nil, false))
	isStorageError("series while the server is gone", worldtest.Call(t, w.c, "history.transformed.series.readings",
		worldtest.Q("limit", 10, "metrics", worldtest.List(worldtest.Q("ref", "temp", "method", "AVG")), "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour))), nil, false))

	// Once the server is back, appends fail on the pool's dead
	// connections (never succeed falsely) until it has replaced them.
	recovers := func(what string) {
		t.Helper()
		for attempt := 0; ; attempt++ {
			r := appendRow()
			if r.ErrURI == "" {
				return
			}
			isWriteError(what, r)
			if attempt == 10 {
				t.Fatalf("%s: the platform did not reconnect after %d appends", what, attempt)
			}
		}
	}
	px.setUp(true)
	recovers("append after the server came back")
	if n := len(w.p.TableRows(w.realm, "readings")); n != acked {
		t.Fatalf("%d rows stored, %d acknowledged", n, acked)
	}

	// A bulk append whose connection is cut in the middle of its COPY.
	bulk := make([]any, 5000)
	for i := range bulk {
		bulk[i] = map[string]any{"tsp": worldtest.Ms(time.Hour + time.Duration(i)*time.Millisecond), "temp": 1.5, "pin": strings.Repeat("x", 40)}
	}
	px.cutAfterBytes(64 << 10)
	isWriteError("bulk append cut half-way", worldtest.Call(t, w.c, "appendBulk.2.26.readings", worldtest.List(bulk...), nil, false))
	px.cutAfterBytes(0)
	// The pool finds out about dead connections as it uses them.
	for attempt := 0; worldtest.Call(t, w.c, "history.transformed.readings", worldtest.Q("limit", 1), nil, false).ErrURI != ""; attempt++ {
		if attempt == 10 {
			t.Fatal("reads do not recover")
		}
	}
	if n := len(w.p.TableRows(w.realm, "readings")); n != acked {
		t.Fatalf("after the cut bulk: %d rows stored, %d acknowledged", n, acked)
	}

	// The server terminates the platform's sessions (pg_terminate_backend).
	admin := sqlConn(t, dbURL)
	var killed int
	if err := admin.QueryRow(worldtest.Ctx(t), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE client_port = ANY($1)",
		px.serverPorts()).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("terminate the platform's sessions: %d, %v", killed, err)
	}
	recovers("append after its session was terminated")
	if n := len(w.p.TableRows(w.realm, "readings")); n != acked {
		t.Fatalf("at the end: %d rows stored, %d acknowledged", n, acked)
	}
}

// TestPostgresCommitAnswerLost: an append whose statement the server
// committed but whose answer was lost (the connection cut as the answer
// comes) is answered outcome_unknown, never a refusal, for a single row
// (INSERT), a bulk of plain rows (COPY) and rows with an entity key (a
// batch); the rows are stored, and the client SDK reads the answer as
// client.ErrOutcomeUnknown. Every row refused is not stored.
func TestPostgresCommitAnswerLost(t *testing.T) {
	worldtest.EachPostgres(t, testPostgresCommitAnswerLost)
}

func testPostgresCommitAnswerLost(t *testing.T, dbURL string) {
	leakcheck.Check(t)
	px := newPGProxy(t, dbURL)
	w := newPGWorld(t, px.url, lostAnswerTemplate)
	stored := func(table string) int { return len(w.p.TableRows(w.realm, table)) }
	lost := func(what, uri string, arg any, table string, rows int) {
		t.Helper()
		before := stored(table)
		px.loseNextAnswer()
		r := worldtest.Call(t, w.c, uri, arg, nil, false)
		if r.ErrURI != wire.ErrOutcomeUnknown {
			t.Fatalf("%s whose answer was lost: %q %v, want %s", what, r.ErrURI, r.ErrArgs, wire.ErrOutcomeUnknown)
		}
		if n := stored(table) - before; n != rows {
			t.Fatalf("%s whose answer was lost: %d rows stored, want %d (the server committed it)", what, n, rows)
		}
		// The pool replaces the cut connection: the next append works.
		for attempt := 0; ; attempt++ {
			r := worldtest.Call(t, w.c, "history.transformed.readings", worldtest.Q("limit", 1), nil, false)
			if r.ErrURI == "" {
				break
			}
			if attempt == 10 {
				t.Fatalf("after %s: reads do not recover: %v", what, r.ErrArgs)
			}
		}
	}
	worldtest.Call(t, w.c, "append.2.26.readings", map[string]any{"tsp": worldtest.Ms(time.Second), "temp": 20}, nil, false).OK(t, "append")
	lost("an append", "append.2.26.readings", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "temp": 21}, "readings", 1)
	bulk := worldtest.List(map[string]any{"tsp": worldtest.Ms(3 * time.Second), "temp": 1}, map[string]any{"tsp": worldtest.Ms(4 * time.Second), "temp": 2})
	lost("a bulk append", "appendBulk.2.26.readings", bulk, "readings", 2)
	lost("an append with an entity key", "append.2.26.machines",
		map[string]any{"tsp": worldtest.Ms(5 * time.Second), "machine": "m1", "state": "on"}, "machines", 1)

	// The SDK: the refusal matches client.ErrOutcomeUnknown.
	sdk, err := ifclient.New(ifclient.WithEnv(w.in.Env()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sdk.Start(worldtest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sdk.Stop(context.Background()) }()
	before := stored("readings")
	px.loseNextAnswer()
	_, err = sdk.AppendToTable(worldtest.Ctx(t), "readings", map[string]any{"tsp": worldtest.T0.Add(6 * time.Second), "temp": 22})
	if !errors.Is(err, ifclient.ErrOutcomeUnknown) || stored("readings") != before+1 {
		t.Fatalf("SDK append whose answer was lost: %v (%d rows stored), want client.ErrOutcomeUnknown (1)", err, stored("readings")-before)
	}
}

// lostAnswerTemplate has a table of plain rows and one with an entity key.
const lostAnswerTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
    - tablename: machines
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: machine, dataType: string}
        - {id: state, dataType: string}
`
