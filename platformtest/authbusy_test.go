package platformtest

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestUnauthenticatedCapRetryAfter: over the cap of links awaiting
// authentication, with no line to wait in, every upgrade is answered 503
// with a Retry-After (the first slots: 1 s, the cap's 8 places admitting
// 64 links a second until a rate is measured) and counted; the log says so once for the episode, and once
// with the count when the waiting links are down to half the cap.
func TestUnauthenticatedCapRetryAfter(t *testing.T) {
	const capacity, refused = 8, 5
	logs := &worldtest.SyncBuffer{}
	f := newFixture(t, WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		withLimits(router.Limits{MaxUnauthenticated: capacity, AdmissionLine: -1, AuthResponseTimeout: time.Hour}))
	id, secret := f.in1.Credentials()
	waiting, challenges := holdPlaces(t, f, capacity)
	d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolMsgpack}}
	for i := range refused {
		_, rsp, err := d.DialContext(worldtest.Ctx(t), f.p.URL(), nil)
		if err == nil || rsp == nil || rsp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("link %d over the cap: err %v, response %v, want 503", i+1, err, rsp)
		}
		_ = rsp.Body.Close()
		if rsp.Header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After %q, want 1", rsp.Header.Get("Retry-After"))
		}
	}
	if n := strings.Count(logs.String(), "too many await authentication"); n != 1 {
		t.Errorf("%d log lines for %d refusals, want 1:\n%s", n, refused, logs)
	}
	var text strings.Builder
	if err := f.p.WriteMetrics(&text); err != nil {
		t.Fatal(err)
	}
	if got := samples(text.String())["flockd_auth_busy_total"]; got != strconv.Itoa(refused) {
		t.Errorf("flockd_auth_busy_total = %q, want %d", got, refused)
	}
	for i, c := range waiting {
		c.Send(&wamp.Authenticate{Signature: crsign.RespondChallenge(secret, challenges[i], nil), Extra: wamp.Dict{}})
		if msg := c.Next().Msg; msg.MessageType() != wamp.WELCOME {
			t.Fatalf("answered challenge: %v", msg)
		}
	}
	worldtest.DialWire(t, f.p, false).MustJoin(f.in1.Realm(), id, secret)
	if !strings.Contains(logs.String(), "links awaiting authentication are under the cap again\" refused="+strconv.Itoa(refused)) {
		t.Errorf("the end of the episode is not logged with its count:\n%s", logs)
	}
}

// holdPlaces opens n links that each hold a place under the cap: HELLO
// sent, CHALLENGE unanswered. It returns them with their challenges.
func holdPlaces(t *testing.T, f *fixture, n int) ([]*worldtest.WireClient, []*wamp.Challenge) {
	t.Helper()
	id, _ := f.in1.Credentials()
	var links []*worldtest.WireClient
	var challenges []*wamp.Challenge
	for range n {
		c := worldtest.DialWire(t, f.p, false)
		c.Send(worldtest.HelloMsg(f.in1.Realm(), id))
		ch, ok := c.Next().Msg.(*wamp.Challenge)
		if !ok {
			t.Fatal("HELLO not answered with CHALLENGE")
		}
		links, challenges = append(links, c), append(challenges, ch)
	}
	return links, challenges
}

// metricReaches waits until the platform's metric name reads want.
func metricReaches(t *testing.T, p *Platform, name, want string) {
	t.Helper()
	for {
		var text strings.Builder
		if err := p.WriteMetrics(&text); err != nil {
			t.Fatal(err)
		}
		if samples(text.String())[name] == want {
			return
		}
		if t.Context().Err() != nil {
			t.Fatalf("%s never read %s", name, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestUnauthenticatedLine: over the cap an upgrade waits in line and is
// upgraded once a place frees; over the line, and at the end of its wait,
// it is answered 503 with Retry-After.
func TestUnauthenticatedLine(t *testing.T) {
	const capacity = 2
	f := newFixture(t, withLimits(router.Limits{MaxUnauthenticated: capacity, AdmissionLine: 1, AdmissionWait: time.Hour, AuthResponseTimeout: time.Hour}))
	_, secret := f.in1.Credentials()
	holders, challenges := holdPlaces(t, f, capacity)
	d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolMsgpack}}
	upgraded := make(chan error, 1)
	go func() {
		c, rsp, err := d.DialContext(worldtest.Ctx(t), f.p.URL(), nil)
		if err == nil {
			_ = rsp.Body.Close()
			_ = c.Close()
		}
		upgraded <- err
	}()
	metricReaches(t, f.p, "flockd_links_admission_line", "1")
	_, rsp, err := d.DialContext(worldtest.Ctx(t), f.p.URL(), nil)
	if err == nil || rsp == nil || rsp.StatusCode != http.StatusServiceUnavailable || rsp.Header.Get("Retry-After") == "" {
		t.Fatalf("an upgrade over the line: err %v, response %v; want 503 with Retry-After", err, rsp)
	}
	_ = rsp.Body.Close()
	holders[0].Send(&wamp.Authenticate{Signature: crsign.RespondChallenge(secret, challenges[0], nil), Extra: wamp.Dict{}})
	if msg := holders[0].Next().Msg; msg.MessageType() != wamp.WELCOME {
		t.Fatalf("answered challenge: %v", msg)
	}
	if err := <-upgraded; err != nil {
		t.Fatalf("the link in line was not upgraded when a place freed: %v", err)
	}
	metricReaches(t, f.p, "flockd_links_admission_line", "0")

	short := newFixture(t, withLimits(router.Limits{MaxUnauthenticated: 1, AdmissionLine: 1, AdmissionWait: time.Millisecond, AuthResponseTimeout: time.Hour}))
	holdPlaces(t, short, 1)
	_, rsp, err = d.DialContext(worldtest.Ctx(t), short.p.URL(), nil)
	if err == nil || rsp == nil || rsp.StatusCode != http.StatusServiceUnavailable || rsp.Header.Get("Retry-After") == "" {
		t.Fatalf("an upgrade whose wait ended: err %v, response %v; want 503 with Retry-After", err, rsp)
	}
	_ = rsp.Body.Close()
	metricReaches(t, short.p, "flockd_auth_busy_total", "1")
}

// TestUnauthenticatedLineClose: closing the platform ends the waits in
// line: the waiting upgrade fails and Close returns.
func TestUnauthenticatedLineClose(t *testing.T) {
	f := newFixture(t, withLimits(router.Limits{MaxUnauthenticated: 1, AdmissionLine: 1, AdmissionWait: time.Hour, AuthResponseTimeout: time.Hour}))
	holdPlaces(t, f, 1)
	d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolMsgpack}}
	upgraded := make(chan error, 1)
	go func() {
		c, _, err := d.DialContext(worldtest.Ctx(t), f.p.URL(), nil)
		if err == nil {
			_ = c.Close()
		}
		upgraded <- err
	}()
	metricReaches(t, f.p, "flockd_links_admission_line", "1")
	f.p.Close()
	if err := <-upgraded; err == nil {
		t.Error("an upgrade waiting in line was upgraded by a platform that closed")
	}
}
