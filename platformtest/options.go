// This file holds the platform options and their defaults.

package platformtest

import (
	"log/slog"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/fleetfiles"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// settings collects what the options set. Defaults live in defaultSettings.
type settings struct {
	metrics   *metrics.Registry // made by Start, after the options (ops.go)
	addr      string
	later     bool // WithServeLater
	logger    *slog.Logger
	start     time.Time
	keepalive time.Duration
	build     time.Duration // how long a release build takes (WithBuildDuration)
	record    router.RecordLimits
	limits    router.Limits // zero fields: the router's defaults (tests change them)
	authLog   int           // the bound of the authentication log (WithAuthLogLimit)
	strict    bool          // the legacy credential is refused (WithStrictAuth)
	columns   bool          // drops of unknown keys fail the test (WithStrictColumns)
	noFiles   bool          // no file service (WithoutFileService, files.go)
	dataDir   string        // the data folder (WithDataDir, datadir.go); "": in memory
	// noLocation: no location service (WithoutLocationService, location.go)
	noLocation bool
	// hosts and origins widen the HTTP edge's rules (WithAllowedHosts,
	// WithAllowedOrigins, edge.go).
	hosts, origins []string

	// spillDir is the file service's spill folder (WithSpillDir, files.go).
	spillDir string

	// console is the web console (WithConsole, console.go); nil: none.
	console *Console

	// fleetStore opens where the data backends keep their rows, with
	// the keys kept with them (fleetdb.go); nil: in the data folder, or
	// in memory.
	fleetStore func() (fleetdb.Store, store.Keys, error)

	// memoryRows bounds the rows of the in-memory store
	// (WithMemoryRowLimit, memory.go); 0: no bound.
	memoryRows int64
	// memoryBytes bounds the bytes of the in-memory store's rows
	// (WithMemoryByteLimit, memory.go); 0: no bound.
	memoryBytes int64
	// uploadRate is the pace an upload's body must keep
	// (WithUploadMinRate, files.go).
	uploadRate fleetfiles.UploadRate

	tb testing.TB // the test of a platform made by New
}

func defaultSettings() settings {
	return settings{
		addr:       "127.0.0.1:0",
		logger:     slog.New(slog.DiscardHandler),
		keepalive:  20 * time.Second,
		uploadRate: fleetfiles.UploadRate{MinRate: fleetfiles.DefaultUploadMinRate, Grace: fleetfiles.DefaultUploadGrace},
	}
}

// Option configures a Platform in New or Start.
type Option func(*settings)

// WithAddr sets the TCP address the platform listens on. The default,
// "127.0.0.1:0", picks a free port on the loopback interface.
func WithAddr(addr string) Option { return func(s *settings) { s.addr = addr } }

// WithLogger sets the logger of the platform. The platform logs its own
// events at info level and everything the embedded nexus router says at
// debug level. The default discards everything.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) {
		if l != nil {
			s.logger = l
		}
	}
}

// WithStartTime sets the platform clock to t at start; time runs on from
// there. The default is the real time.
func WithStartTime(t time.Time) Option { return func(s *settings) { s.start = t } }

// WithServerKeepalive sets how often the router pings each WebSocket link;
// a link that misses two pongs in a row is closed (docs/wire.md §2). The
// default is 20 seconds; 0 turns server pings off.
func WithServerKeepalive(d time.Duration) Option {
	return func(s *settings) {
		if d < 0 {
			d = 0
		}
		s.keepalive = d
	}
}

// WithBuildDuration sets how long a release build takes in platform time:
// a release stays BUILDING until the platform clock has moved that far
// (Clock().Advance moves it at once). The default, 0, ends a build at the
// first look after it started.
func WithBuildDuration(d time.Duration) Option {
	return func(s *settings) { s.build = max(d, 0) }
}

// WithRecording bounds the recording of inbound messages (Recorded,
// Publications, Calls) to the newest messages within messages and bytes
// (the messages as received, plus 64 bytes each); 0 leaves a dimension
// unbounded. By default the
// recording keeps everything, which a test wants and a long-running server
// does not: cmd/flockd bounds it.
func WithRecording(messages int, bytes int64) Option {
	return func(s *settings) {
		s.record = router.RecordLimits{Messages: max(messages, 0), Bytes: max(bytes, 0)}
	}
}

// DefaultAuthLogLimit is how many authentication attempts AuthLog keeps by
// default: the newest 10000.
const DefaultAuthLogLimit = router.DefaultAuthLogLimit

// WithAuthLogLimit bounds the authentication log (AuthLog) to the newest
// n attempts; n ≤ 0 keeps the default, DefaultAuthLogLimit. Every other
// per-event record is bounded too: the recording by WithRecording, what
// an interception saw to its newest 10000 messages, the agent runtime's
// tool calls and the console's action log to theirs.
func WithAuthLogLimit(n int) Option { return func(s *settings) { s.authLog = max(n, 0) } }

// WithoutRecording records nothing: Recorded, Publications and Calls stay
// empty. Interceptions still see every message.
func WithoutRecording() Option {
	return func(s *settings) { s.record = router.RecordLimits{Off: true} }
}

// WithStrictAuth refuses the legacy credential (serial, serial) on every
// realm (denial reason legacy_denied): only per-app credentials join. The
// real platform's default admits the legacy credential on the realm of an
// app installed on the device, and a serial is easy to learn (it is the
// authid of every row and every caller), so by default one device can join
// another's realms as it; strict mode is the platform's "strict" mode.
func WithStrictAuth() Option { return func(s *settings) { s.strict = true } }

// WithStrictColumns fails the test when an app writes a row that loses
// something on its way into a table, naming the key, the table and the
// call: a key that no column of the table reads (the platform stores the
// row without it, so a typo such as "celsius" for "temperature" is
// silent), or a published row without tsp (the platform drops the row;
// an append gets an error anyway). It fails once per app, table and key,
// with t.Errorf, so the test goes on. The platform's behaviour is
// unchanged; without the option these drops are logged as warnings (once
// per app, table and key; every row dropped for its tsp) and counted on
// the console's table page. On a platform made by Start they are logged
// at error level.
func WithStrictColumns() Option { return func(s *settings) { s.columns = true } }
