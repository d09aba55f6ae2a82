// This file holds the options: Option for New with the defaults, and the
// per-call options of Connect and ConnectAll.

package crossapp

import (
	"time"

	"github.com/flockgo/ironflock/client"
)

// Defaults of the provider connection (docs/wire.md §11.2).
const (
	// DefaultConnectTimeout bounds a handle's first connection, discovery
	// included.
	DefaultConnectTimeout = 50 * time.Second
	// DefaultDenialRefusals and DefaultDenialAfter make a refusal of a
	// connected handle's rejoin persistent: at least this many refusals in
	// a row, the first at least this long ago.
	DefaultDenialRefusals = 3
	DefaultDenialAfter    = 60 * time.Second
)

// Option configures a Consumer at construction.
type Option func(*settings)

type settings struct {
	connectTimeout time.Duration
	denialRefusals int
	denialAfter    time.Duration
}

func defaultSettings() settings {
	return settings{
		connectTimeout: DefaultConnectTimeout,
		denialRefusals: DefaultDenialRefusals,
		denialAfter:    DefaultDenialAfter,
	}
}

// WithConnectTimeout bounds the opening of a handle: discovery and the
// first connection to the provider's realm, which waits out a realm the
// platform has not created yet (default 50 s). A handle not connected in
// time fails with client.ErrNotConnected. A value that is not positive
// keeps the default.
func WithConnectTimeout(d time.Duration) Option {
	return func(s *settings) {
		if d > 0 {
			s.connectTimeout = d
		}
	}
}

// WithPersistentDenial sets when the platform's refusals of a connected
// handle's rejoin end the handle with NOT_AUTHORIZED, if the grant still
// stands: after refusals refusals in a row, the first at least after ago
// (default 3 and one minute). Values that are not positive keep the
// defaults.
func WithPersistentDenial(refusals int, after time.Duration) Option {
	return func(s *settings) {
		if refusals > 0 {
			s.denialRefusals = refusals
		}
		if after > 0 {
			s.denialAfter = after
		}
	}
}

// ConnectOption configures Connect, and ConnectAll too: Stage and OnError.
type ConnectOption interface {
	ConnectAllOption
	applyConnect(*connectSettings)
}

// ConnectAllOption configures ConnectAll: every ConnectOption, and
// ContinueOnError.
type ConnectAllOption interface{ applyConnectAll(*connectAllSettings) }

type connectSettings struct {
	stage   client.Stage // "" means the consumer's own
	onError func(error)
}

type connectAllSettings struct {
	connectSettings
	stopOnError bool
}

type connectOption func(*connectSettings)

func (f connectOption) applyConnect(s *connectSettings)       { f(s) }
func (f connectOption) applyConnectAll(s *connectAllSettings) { f(&s.connectSettings) }

type connectAllOption func(*connectAllSettings)

func (f connectAllOption) applyConnectAll(s *connectAllSettings) { f(s) }

// Stage selects the provider's stage, client.Dev or client.Prod (any
// case); the default is the consumer's own stage.
func Stage(stage client.Stage) ConnectOption {
	return connectOption(func(s *connectSettings) { s.stage = stage })
}

// OnError sets the function told when a handle loses its access after it
// was opened (NO_GRANT when the grant was revoked, NOT_AUTHORIZED when the
// platform keeps refusing it): it is called once, on a goroutine of its
// own, with an error carrying the *AccessError (it may stop the client),
// and the handle is closed.
// Handles are cached: a handle keeps the OnError of the call that opened
// it. ConnectAll also hands it each provider that fails to open, when it
// continues on errors.
func OnError(fn func(err error)) ConnectOption {
	return connectOption(func(s *connectSettings) { s.onError = fn })
}

// ContinueOnError says what ConnectAll does with a provider that fails to
// open: with true (the default) it reports it to OnError and leaves it out
// of the handles; with false it returns the first failure.
func ContinueOnError(on bool) ConnectAllOption {
	return connectAllOption(func(s *connectAllSettings) { s.stopOnError = !on })
}
