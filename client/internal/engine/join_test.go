// This file tests the join: the HELLO each choice of authentication
// methods sends, the answer to the router's challenge, and ABORTs, well
// formed or not.

package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// joinRouter hands the HELLO of each connection to answer, which plays the
// router's side of the join from there.
func joinRouter(t *testing.T, answer func(p *peer, hello *wamp.Hello)) string {
	return wsRouter(t, func(p *peer) {
		if hello, ok := next[*wamp.Hello](p); ok {
			answer(p, hello)
			p.loop(nil) // until the client leaves
		}
	})
}

func TestJoinAuthMethods(t *testing.T) {
	leakcheck.Check(t)
	const challenge = `{"nonce":"n1","authid":"dev"}`
	cases := []struct {
		name        string
		authID      string
		auth        []AuthMethod
		pick        string // the method the router challenges with; "" = WELCOME at once
		wantMethods []any
		wantSig     string
	}{
		{"wampcra", "dev", []AuthMethod{{AuthWAMPCRA, "secret"}}, AuthWAMPCRA,
			[]any{"wampcra"}, crsign.SignChallenge(challenge, []byte("secret"))},
		{"ticket", "dev", []AuthMethod{{AuthTicket, "tkt-1"}}, AuthTicket, []any{"ticket"}, "tkt-1"},
		{"anonymous", "", []AuthMethod{{Name: AuthAnonymous}}, "", []any{"anonymous"}, ""},
		{"several, router picks ticket", "dev", []AuthMethod{{AuthWAMPCRA, "secret"}, {AuthTicket, "tkt-2"}, {Name: AuthAnonymous}},
			AuthTicket, []any{"wampcra", "ticket", "anonymous"}, "tkt-2"},
		{"several, router admits anonymously", "dev", []AuthMethod{{AuthTicket, "tkt-3"}, {Name: AuthAnonymous}},
			"", []any{"ticket", "anonymous"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hellos := make(chan wamp.Dict, 1)
			sigs := make(chan string, 1)
			url := joinRouter(t, func(p *peer, hello *wamp.Hello) {
				hellos <- hello.Details
				if tc.pick != "" {
					p.send(&wamp.Challenge{AuthMethod: tc.pick, Extra: wamp.Dict{"challenge": challenge}})
					auth, ok := next[*wamp.Authenticate](p)
					if !ok {
						return
					}
					sigs <- auth.Signature
				}
				p.send(&wamp.Welcome{ID: 7, Details: wamp.Dict{"authid": "dev", "authrole": "user", "authmethod": tc.pick}})
			})
			cfg := testConfig(url)
			cfg.AuthID, cfg.Auth = tc.authID, tc.auth
			s := connectWith(t, cfg)
			details := <-hellos
			if diff := cmp.Diff(tc.wantMethods, details["authmethods"]); diff != "" {
				t.Errorf("authmethods (-want +got):\n%s", diff)
			}
			if id, ok := details["authid"]; tc.authID == "" && ok || tc.authID != "" && id != tc.authID {
				t.Errorf("HELLO authid = %v (present %v), want %q", id, ok, tc.authID)
			}
			if tc.pick != "" {
				if sig := <-sigs; sig != tc.wantSig {
					t.Errorf("signature = %q, want %q", sig, tc.wantSig)
				}
			}
			if s.ID() != 7 || s.Realm() != "realm1" || s.Details()["authrole"] != "user" {
				t.Errorf("session id %d realm %q details %v", s.ID(), s.Realm(), s.Details())
			}
		})
	}
}

func TestChallengeForMethodNotOffered(t *testing.T) {
	leakcheck.Check(t)
	url := joinRouter(t, func(p *peer, _ *wamp.Hello) {
		p.send(&wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": "{}"}})
	})
	cfg := testConfig(url)
	cfg.Auth = []AuthMethod{{AuthTicket, "t"}}
	_, err := Connect(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), `"wampcra"`) {
		t.Fatalf("Connect = %v, want an error naming the method the router asked for", err)
	}
}

func TestAbortNamesTheReason(t *testing.T) {
	leakcheck.Check(t)
	cases := []struct {
		name    string
		abort   []any
		wantURI string   // an *Error with this URI; else a plain error
		want    []string // in the error text
	}{
		{"well formed", []any{3, map[string]any{"message": "no realm here"}, "wamp.error.no_such_realm"},
			"wamp.error.no_such_realm", []string{"no realm here"}},
		{"details missing", []any{3, "wamp.error.authentication_failed"},
			"wamp.error.authentication_failed", nil},
		{"reason a number", []any{3, map[string]any{}, 42}, "", []string{"42", "not a URI"}},
		{"reason a dict, details missing", []any{3, map[string]any{"message": "denied"}, map[string]any{"code": "E7"}},
			"", []string{`{"code":"E7"}`, "denied"}},
		{"nothing at all", []any{3}, "", []string{"without a reason", "details missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := joinRouter(t, func(p *peer, _ *wamp.Hello) { p.sendRaw(tc.abort) })
			_, err := Connect(context.Background(), testConfig(url))
			if err == nil {
				t.Fatal("join succeeded")
			}
			var we *Error
			if tc.wantURI != "" {
				if !errors.As(err, &we) || we.URI != tc.wantURI {
					t.Fatalf("err = %#v, want an *Error with %s", err, tc.wantURI)
				}
				for _, w := range tc.want {
					if len(we.Args) == 0 || we.Args[0] != w {
						t.Errorf("args = %v, want the router's message %q", we.Args, w)
					}
				}
				return
			}
			if errors.As(err, &we) {
				t.Fatalf("err = %#v: a reason that is not a URI must not pass for one", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestAbortInSessionNamesTheReason(t *testing.T) {
	leakcheck.Check(t)
	url := wsRouter(t, func(p *peer) {
		if p.handshake() {
			p.sendRaw([]any{3, map[string]any{}, 17})
			p.read()
		}
	})
	s := connectTo(t, url)
	<-s.Done()
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "17") {
		t.Fatalf("session ended with %v, want the router's reason 17", err)
	}
}

// TestWelcomeDetailsKept: the WELCOME's details, kept encoded, come back
// as decoded from the router's message, in either serializer, and each
// call returns a map of the caller's own.
func TestWelcomeDetailsKept(t *testing.T) {
	details := wamp.Dict{"authid": "dev", "authrole": "app", "authmethod": "wampcra",
		"roles": wamp.Dict{"broker": wamp.Dict{"features": wamp.Dict{"publisher_exclusion": true}},
			"dealer": wamp.Dict{"features": wamp.Dict{"call_canceling": true}}},
		"x_limits": wamp.List{int64(3), 1.5, "s", nil}}
	for _, json := range []bool{false, true} {
		t.Run(format(json), func(t *testing.T) {
			raw, err := nexusSer(json).Serialize(&wamp.Welcome{ID: 9, Details: details})
			if err != nil {
				t.Fatal(err)
			}
			msg, err := decode(raw, json, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := msg.(*welcomeMsg)
			w := newWelcome(m)
			got := w.detailsDict()
			if diff := cmp.Diff(m.Details, got); diff != "" || w.id != 9 {
				t.Fatalf("id %d, details (-decoded +kept):\n%s", w.id, diff)
			}
			got["authid"] = "changed"
			if again := w.detailsDict(); again["authid"] != "dev" {
				t.Fatalf("a caller's change reached the kept details: %v", again["authid"])
			}
		})
	}
}
