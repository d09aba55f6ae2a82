// This file holds the platform options and their defaults.

package platformtest

import (
	"log/slog"
	"time"
)

// settings collects what the options set. Defaults live in defaultSettings.
type settings struct {
	addr      string
	logger    *slog.Logger
	start     time.Time
	keepalive time.Duration
	build     time.Duration // how long a release build takes (WithBuildDuration)
}

func defaultSettings() settings {
	return settings{
		addr:      "127.0.0.1:0",
		logger:    slog.New(slog.DiscardHandler),
		keepalive: 20 * time.Second,
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
// a link that misses two pongs in a row is closed (WIRE.md §1.5). The
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
