// This file holds Option, the client options, their defaults and the
// serializers.

package client

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
	"github.com/flockgo/ironflock/internal/dotenv"
)

// Option configures a Client at construction.
type Option func(*settings)

// Serializer selects the WAMP serialization.
type Serializer int

const (
	// MsgPack is the default serialization (wamp.2.msgpack), as the platform uses.
	MsgPack Serializer = iota
	// JSON is wamp.2.json; binary values follow the WAMP JSON convention.
	JSON
)

// String returns the WebSocket subprotocol of the serializer.
func (s Serializer) String() string {
	if s == JSON {
		return "wamp.2.json"
	}
	return "wamp.2.msgpack"
}

// Defaults of every tunable, in one place (docs/wire.md §11.2 and the seed).
const (
	DefaultKeepaliveIdle     = 30 * time.Second
	DefaultPongTimeout       = 10 * time.Second
	DefaultReconnectWindow   = 60 * time.Second
	DefaultSessionWait       = 10 * time.Second
	DefaultResponseTimeout   = 10 * time.Second
	DefaultHandshakeTimeout  = 15 * time.Second
	DefaultReconnectInitial  = 1 * time.Second
	DefaultReconnectMax      = 2 * time.Second
	DefaultRealmSlowAfter    = 60 * time.Second
	DefaultRealmSlowInterval = 120 * time.Second
	DefaultRestoreInitial    = 1 * time.Second
	DefaultRestoreMax        = 30 * time.Second
	DefaultStopBudget        = 10 * time.Second
	DefaultAuthFailureGrace  = 5 * time.Minute // see WithAuthFailureGrace
)

// settings are what the options set. New reads the device environment and
// the identity from them; what a client keeps afterwards (kept) is the
// rest, one copy shared by the clients that changed none of it.
type settings struct {
	// Read by New (and FromServer) only: a client keeps none of them.
	env                         map[string]string // nil: the process environment
	envDir                      string
	logger                      *slog.Logger
	http                        *http.Client
	serial, deviceName, appName *string
	deviceKey, swarmKey, appKey *int
	stage                       *Stage
	url                         string
	errs                        []error

	onState   func(State)
	onAttempt func(error)
	auth      []engine.AuthMethod // nil: the platform's credential choice
	// hooks are the WithHooks hooks; tracer the WithTracePropagation seam.
	hooks  hookSet
	tracer TracePropagator
	// dial is WithDialer's function; nil dials with a net.Dialer.
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	tunables
}

// tunables are the settings that are plain values: clients compare them
// to share their settings (kept).
type tunables struct {
	realm      string
	authID     string // with auth: the authid of WithAuth or WithCredentials
	serializer Serializer

	keepaliveIdle, pongTimeout time.Duration
	reconnectWindow            time.Duration
	sessionWait                time.Duration
	responseTimeout            time.Duration
	handshakeTimeout           time.Duration
	reconnectInitial           time.Duration
	reconnectMax               time.Duration
	realmSlowAfter             time.Duration
	realmSlowInterval          time.Duration
	authFailureGrace           time.Duration
	restoreInitial             time.Duration
	restoreMax                 time.Duration
	eventQueueLimit            int
	invocationLimit            int
}

func defaultSettings() settings {
	return settings{tunables: tunables{
		keepaliveIdle:     DefaultKeepaliveIdle,
		pongTimeout:       DefaultPongTimeout,
		reconnectWindow:   DefaultReconnectWindow,
		sessionWait:       DefaultSessionWait,
		responseTimeout:   DefaultResponseTimeout,
		handshakeTimeout:  DefaultHandshakeTimeout,
		reconnectInitial:  DefaultReconnectInitial,
		reconnectMax:      DefaultReconnectMax,
		realmSlowAfter:    DefaultRealmSlowAfter,
		realmSlowInterval: DefaultRealmSlowInterval,
		authFailureGrace:  DefaultAuthFailureGrace,
		restoreInitial:    DefaultRestoreInitial,
		restoreMax:        DefaultRestoreMax,
		eventQueueLimit:   DefaultEventQueueLimit,
		invocationLimit:   DefaultInvocationLimit,
	}}
}

// defaultKept is what every client that changed nothing it keeps holds:
// one copy for the process.
var defaultKept = func() *settings { s := defaultSettings(); return &s }()

// kept returns what a client keeps of s: s without what New alone reads;
// defaultKept when the rest is all defaults, so that a fleet of clients
// in one process holds one copy.
func (s settings) kept() *settings {
	s.env, s.envDir, s.logger, s.http = nil, "", nil, nil
	s.serial, s.deviceName, s.appName = nil, nil, nil
	s.deviceKey, s.swarmKey, s.appKey, s.stage = nil, nil, nil, nil
	s.url, s.errs = "", nil
	if s.onState == nil && s.onAttempt == nil && s.auth == nil && s.hooks.n == 0 &&
		s.tracer == nil && s.dial == nil && s.tunables == defaultKept.tunables {
		return defaultKept
	}
	return &s
}

func (s *settings) fail(format string, args ...any) {
	s.errs = append(s.errs, fmt.Errorf(format, args...))
}

func (s *settings) positive(name string, d time.Duration) bool {
	return s.atLeast(name, d, 1)
}

// atLeast reports whether d ≥ floor, and records an error when it is not.
func (s *settings) atLeast(name string, d, floor time.Duration) bool {
	switch {
	case d >= floor:
		return true
	case floor <= 1:
		s.fail("%s must be positive, got %s", name, durationText(d))
	default:
		s.fail("%s must be at least %s, got %s", name, durationText(floor), durationText(d))
	}
	return false
}

// WithEnv makes the client read its device environment from m instead of the
// process environment. Tests and programs running several clients rely on it.
func WithEnv(m map[string]string) Option {
	return func(s *settings) {
		cp := make(map[string]string, len(m))
		for k, v := range m {
			cp[k] = v
		}
		s.env = cp
	}
}

// WithEnvFile makes the client read its device environment from a dotenv
// file instead of the process environment, as WithEnv does from a map:
// what "flockd env -format dotenv DEVICE > device.env" writes, or the
// console's download. The file is read once, by New. The format, line by
// line: blank lines and # comments; KEY=VALUE, optionally after
// "export "; VALUE unquoted (the rest of the line, trimmed, a # after a
// blank starting a comment), in single quotes (taken as it is) or in
// double quotes (with the escapes \n \r \t \" \\ and \$); nothing is
// expanded; a key given twice is an error. New fails with the file's name
// and the line of the first problem (ErrInvalidArgument; a missing file
// also matches fs.ErrNotExist).
func WithEnvFile(path string) Option {
	return func(s *settings) {
		f, err := os.Open(path)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("env file: %w", err))
			return
		}
		defer f.Close()
		env, err := dotenv.Parse(f)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("env file %s: %w", path, err))
			return
		}
		s.env = env
	}
}

// WithEnvDir sets the directory of the agent's environment mirror
// (default /data/env, or IRONFLOCK_ENV_DIR). Credentials are read from
// <dir>/APP_AUTH_ID.txt and <dir>/APP_AUTH_SECRET.txt on every connection
// attempt, so a rotated credential is picked up.
func WithEnvDir(dir string) Option { return func(s *settings) { s.envDir = dir } }

// WithSerialNumber overrides DEVICE_SERIAL_NUMBER.
func WithSerialNumber(serial string) Option { return func(s *settings) { s.serial = &serial } }

// WithDeviceKey overrides DEVICE_KEY.
func WithDeviceKey(key int) Option { return func(s *settings) { s.deviceKey = &key } }

// WithDeviceName overrides DEVICE_NAME.
func WithDeviceName(name string) Option { return func(s *settings) { s.deviceName = &name } }

// WithSwarmKey overrides SWARM_KEY.
func WithSwarmKey(key int) Option { return func(s *settings) { s.swarmKey = &key } }

// WithAppKey overrides APP_KEY.
func WithAppKey(key int) Option { return func(s *settings) { s.appKey = &key } }

// WithAppName overrides APP_NAME.
func WithAppName(name string) Option { return func(s *settings) { s.appName = &name } }

// WithStage overrides ENV.
func WithStage(stage Stage) Option { return func(s *settings) { s.stage = &stage } }

// WithURL sets the router URL (ws, wss, http or https), overriding
// DEVICE_ENDPOINT_URL and RESWARM_URL.
func WithURL(url string) Option { return func(s *settings) { s.url = url } }

// WithCredentials sets an explicit WAMP-CRA credential, used on every
// attempt instead of the per-app or legacy credential. Both halves are
// required. It is WithAuth(WAMPCRA(authID, secret)).
func WithCredentials(authID, secret string) Option {
	return func(s *settings) {
		if authID == "" || secret == "" {
			s.fail("WithCredentials needs both an authid and a secret")
			return
		}
		WithAuth(WAMPCRA(authID, secret))(s)
	}
}

// WithRealm sets the realm to join instead of the app's realm
// realm-<swarm>-<app>-<stage>, for routers other than the IronFlock
// platform. Start then needs no SWARM_KEY or APP_KEY; the table operations
// and device functions still do, and address the app's tables and
// functions whatever the realm.
func WithRealm(realm string) Option {
	return func(s *settings) {
		if realm == "" || strings.TrimSpace(realm) != realm {
			s.fail("WithRealm needs a realm name without surrounding whitespace, got %q", realm)
			return
		}
		s.realm = realm
	}
}

// WithSerializer selects msgpack (default) or JSON.
func WithSerializer(ser Serializer) Option {
	return func(s *settings) {
		if ser != MsgPack && ser != JSON {
			s.fail("unknown serializer %d", int(ser))
			return
		}
		s.serializer = ser
	}
}

// Floors of WithKeepalive: shorter keepalive timings would drop healthy
// links (a pong needs a round trip, which takes a good part of a second on
// cellular or satellite links).
const (
	MinKeepaliveIdle = 1 * time.Second
	MinPongTimeout   = 1 * time.Second
)

// WithKeepalive sets how long the link may be silent before the client pings
// (default 30 s) and how long it then waits for any traffic before dropping
// the link and reconnecting (default 10 s). Incoming traffic of any kind
// counts as proof of life, so a busy link is never pinged. Values below
// MinKeepaliveIdle or MinPongTimeout (1 s each) are refused: New fails with
// ErrInvalidArgument.
func WithKeepalive(idle, pongTimeout time.Duration) Option {
	return func(s *settings) {
		if s.atLeast("keepalive idle", idle, MinKeepaliveIdle) && s.atLeast("pong timeout", pongTimeout, MinPongTimeout) {
			s.keepaliveIdle, s.pongTimeout = idle, pongTimeout
		}
	}
}

// WithReconnectWindow sets how long table operations wait for a session and
// retry calls the data backend has not registered yet (default 60 s; 0
// disables: plain session wait, no retries).
func WithReconnectWindow(d time.Duration) Option {
	return func(s *settings) {
		if d < 0 {
			s.fail("reconnect window must not be negative, got %s", durationText(d))
			return
		}
		s.reconnectWindow = d
	}
}

// WithSessionWait sets how long an operation issued while disconnected waits
// for a session before failing with ErrNotConnected (default 10 s).
func WithSessionWait(d time.Duration) Option {
	return func(s *settings) {
		if s.positive("session wait", d) {
			s.sessionWait = d
		}
	}
}

// WithResponseTimeout sets how long the client waits for the router's answer
// to each join step, SUBSCRIBE, REGISTER, acknowledged PUBLISH and GOODBYE
// (default 10 s).
func WithResponseTimeout(d time.Duration) Option {
	return func(s *settings) {
		if s.positive("response timeout", d) {
			s.responseTimeout = d
		}
	}
}

// WithReconnectBackoff sets the reconnect cadence: the first delay and the
// cap it grows to by ×1.5 with ±10 % jitter (default 1 s to 2 s).
func WithReconnectBackoff(initial, max time.Duration) Option {
	return func(s *settings) {
		if s.positive("reconnect initial delay", initial) && s.positive("reconnect max delay", max) {
			if max < initial {
				s.fail("reconnect max delay %s is below the initial delay %s", durationText(max), durationText(initial))
				return
			}
			s.reconnectInitial, s.reconnectMax = initial, max
		}
	}
}

// WithRealmRetry sets how long a join may be refused with
// wamp.error.no_such_realm before the client slows down (default 1 minute)
// and the interval of attempts once slow (default 2 minutes).
func WithRealmRetry(slowAfter, slowInterval time.Duration) Option {
	return func(s *settings) {
		if s.positive("realm slow-down delay", slowAfter) && s.positive("slow realm interval", slowInterval) {
			s.realmSlowAfter, s.realmSlowInterval = slowAfter, slowInterval
		}
	}
}

// WithRestoreBackoff sets the cadence at which a subscription or
// registration that failed to be restored is retried on the same session
// (default 1 s doubling to 30 s, ±15 % jitter).
func WithRestoreBackoff(initial, max time.Duration) Option {
	return func(s *settings) {
		if s.positive("restore initial delay", initial) && s.positive("restore max delay", max) {
			s.restoreInitial, s.restoreMax = initial, max
		}
	}
}

// WithLogger sets the logger (default slog.Default()). The client logs a
// lost connection at warn level ("ironflock: connection lost;
// reconnecting"), each failed attempt at info level, and its return at
// info level: "ironflock: connected again" with the realm, the downtime
// (from the loss it noticed to the restored session), the subscriptions
// and registrations restored and, when some failed, how many it keeps
// retrying.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithStateHandler registers a function called with every new connection
// state, in order, on a goroutine of its own.
func WithStateHandler(fn func(State)) Option { return func(s *settings) { s.onState = fn } }

// WithHTTPClient sets the HTTP client FromServer uses (default
// http.DefaultClient).
func WithHTTPClient(hc *http.Client) Option { return func(s *settings) { s.http = hc } }
