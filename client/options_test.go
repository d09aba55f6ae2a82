// This file tests the options refused or accepted at New: keepalive
// floors, authentication methods, the realm, and how durations read in
// messages.

package client

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client/internal/engine"
)

func TestKeepaliveFloor(t *testing.T) {
	for _, tc := range []struct {
		idle, pong time.Duration
		want       string
	}{
		{time.Nanosecond, time.Second, "keepalive idle must be at least 1s, got 1ns"},
		{999 * time.Millisecond, time.Second, "keepalive idle must be at least 1s, got 999ms"},
		{time.Second, 100 * time.Millisecond, "pong timeout must be at least 1s, got 100ms"},
		{time.Minute, -time.Second, "pong timeout must be at least 1s, got -1s"},
	} {
		_, err := New(WithEnv(baseEnv()), WithLogger(quietLogger()), WithKeepalive(tc.idle, tc.pong))
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WithKeepalive(%v, %v): err = %v, want ErrInvalidArgument saying %q", tc.idle, tc.pong, err, tc.want)
		}
	}
	c := newTestClient(t, baseEnv(), WithKeepalive(MinKeepaliveIdle, MinPongTimeout))
	if c.set.keepaliveIdle != time.Second || c.set.pongTimeout != time.Second {
		t.Errorf("keepalive at the floor = %v, %v", c.set.keepaliveIdle, c.set.pongTimeout)
	}
}

func TestDurationText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		59999999439 * time.Nanosecond: "60s",
		10 * time.Second:              "10s",
		1500 * time.Millisecond:       "1.5s",
		120 * time.Second:             "120s",
		999999 * time.Microsecond:     "1s",
		50 * time.Millisecond:         "50ms",
		49999 * time.Microsecond:      "50ms",
		time.Nanosecond:               "1ns",
		-2 * time.Second:              "-2s",
	} {
		if got := durationText(d); got != want {
			t.Errorf("durationText(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestAuthOptions(t *testing.T) {
	cases := []struct {
		name   string
		opt    Option
		authID string
		want   []engine.AuthMethod
	}{
		{"credentials", WithCredentials("dev", "s"), "dev", []engine.AuthMethod{{Name: "wampcra", Secret: "s"}}},
		{"ticket", WithAuth(Ticket("dev", "t")), "dev", []engine.AuthMethod{{Name: "ticket", Secret: "t"}}},
		{"anonymous", WithAuth(Anonymous()), "", []engine.AuthMethod{{Name: "anonymous"}}},
		{"several, in order", WithAuth(Ticket("dev", "t"), WAMPCRA("dev", "s"), Anonymous()), "dev",
			[]engine.AuthMethod{{Name: "ticket", Secret: "t"}, {Name: "wampcra", Secret: "s"}, {Name: "anonymous"}}},
	}
	for _, tc := range cases {
		c := newTestClient(t, baseEnv(), tc.opt)
		got := c.resolveCredential()
		if got.authID != tc.authID || got.kind != "explicit" {
			t.Errorf("%s: credential %+v, want authid %q", tc.name, got, tc.authID)
		}
		if diff := cmp.Diff(tc.want, got.methods); diff != "" {
			t.Errorf("%s: methods (-want +got):\n%s", tc.name, diff)
		}
	}
	for name, opt := range map[string]Option{
		"none":             WithAuth(),
		"zero Auth":        WithAuth(Auth{}),
		"two authids":      WithAuth(WAMPCRA("a", "s"), Ticket("b", "t")),
		"twice the method": WithAuth(Ticket("a", "t"), Ticket("a", "u")),
		"ticket without":   WithAuth(Ticket("a", "")),
		"cra without id":   WithAuth(WAMPCRA("", "s")),
		"empty realm":      WithRealm(""),
		"padded realm":     WithRealm(" realm1"),
	} {
		if _, err := New(WithEnv(baseEnv()), WithLogger(quietLogger()), opt); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", name, err)
		}
	}
}

func TestRealmOption(t *testing.T) {
	c := newTestClient(t, baseEnv())
	if c.Realm() != "realm-2-26-dev" {
		t.Errorf("default realm = %q", c.Realm())
	}
	env := baseEnv()
	delete(env, "SWARM_KEY")
	delete(env, "APP_KEY")
	c = newTestClient(t, env, WithRealm("realm1"))
	if c.Realm() != "realm1" {
		t.Errorf("realm = %q, want realm1", c.Realm())
	}
}
