// This file tests, on the recorded wire, where a secret and a candidate
// travel: the plaintext only in the app's own writes and in reveal
// answers, the candidate only in verify calls, neither in feeds, reads,
// errors, storage or log lines; and that Verify fails closed on answers
// the fake never gives.

package secrets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/secrets"
)

// tapped is a fixture whose client talks through a tap, with the logs of
// both sides captured.
type tapped struct {
	*fixture
	tap        *tap
	plog, clog *logBuffer
}

func newTapped(t *testing.T) *tapped {
	t.Helper()
	tt := &tapped{plog: &logBuffer{}, clog: &logBuffer{}}
	p := platformtest.New(t, platformtest.WithLogger(tt.plog.logger()))
	app := p.AddApp("vault", vaultTemplate)
	in := p.Install(p.AddDevice("gateway"), app, platformtest.Dev)
	tt.tap = newTap(t, p)
	c := clienttest.Start(t, in, client.WithURL(tt.tap.url()), client.WithLogger(tt.clog.logger()))
	tt.fixture = &fixture{p: p, in: in, c: c, s: secrets.New(c)}
	return tt
}

// isWrite reports a write of the app's tables: a publication on
// <S>.<A>.<t> or bulk.<S>.<A>.<t>, a call of append… or appendBulk….
func isWrite(m wamp.Message, env map[string]string) bool {
	own := env["SWARM_KEY"] + "." + env["APP_KEY"] + "."
	switch x := m.(type) {
	case *wamp.Publish:
		return strings.HasPrefix(string(x.Topic), own) || strings.HasPrefix(string(x.Topic), "bulk."+own)
	case *wamp.Call:
		return strings.HasPrefix(string(x.Procedure), "append."+own) || strings.HasPrefix(string(x.Procedure), "appendBulk."+own)
	}
	return false
}

// TestPlaintextOnlyInRevealAnswers records a scenario's whole traffic —
// writes (append, publish, both bulk forms), feeds, history, the latest
// marker, series, error reports, refusals, verify and reveal — and finds
// the plaintext only in the app's own writes and in the answers to
// secret.reveal.<t>, the candidate only in calls of secret.verify.<t>;
// neither in the stored rows, the feeds, the errors nor the log lines of
// the client and the platform.
func TestPlaintextOnlyInRevealAnswers(t *testing.T) {
	leakcheck.Check(t)
	const plain, candidate = "sk-PLAINTEXT-7f3a", "sk-CANDIDATE-91b2"
	f := newTapped(t)
	ctx := ctxT(t)

	var mu sync.Mutex
	var fed []client.Row
	got := make(chan struct{}, 16)
	if _, err := f.c.SubscribeToTable(ctx, "credentials", func(_ context.Context, ev *client.TableEvent) {
		mu.Lock()
		fed = append(fed, ev.Row)
		mu.Unlock()
		got <- struct{}{}
	}); err != nil {
		t.Fatal(err)
	}

	cred := func(i int, machine string) credential {
		return credential{Tsp: t0.Add(time.Duration(i) * time.Second), Machine: machine, State: "on", Level: float64(i), APIKey: secrets.Set(plain)}
	}
	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	_, err := f.c.AppendToTable(ctx, "credentials", cred(0, "m1"))
	keep(err)
	keep(f.c.PublishToTable(ctx, "credentials", cred(1, "m2")))
	_, err = f.c.AppendRowsToTable(ctx, "credentials", []credential{cred(2, "m3"), cred(3, "m4")})
	keep(err)
	keep(f.c.PublishRowsToTable(ctx, "credentials", []credential{cred(4, "m5"), cred(5, "m6")}))
	if len(errs) > 0 {
		t.Fatalf("writes: %v", errs)
	}
	for range 6 {
		select {
		case <-got:
		case <-ctx.Done():
			t.Fatal("the feed did not deliver the six rows")
		}
	}

	_, err = f.c.GetHistory(ctx, "credentials", &client.Query{Limit: 100})
	keep(err)
	_, err = f.c.GetHistory(ctx, "credentials", &client.Query{FilterAnd: []client.Filter{client.Latest()}})
	keep(err)
	_, err = f.c.GetSeriesHistory(ctx, "credentials", client.SeriesQuery{Metrics: []client.Metric{{Ref: "level", Method: client.AVG}},
		TimeRange: *client.Between(t0, t0.Add(time.Minute)), Limit: 10})
	keep(err)
	_, err = f.c.ReportError(ctx, errors.New("valve stuck"), client.AppendReport())
	keep(err)
	if len(errs) > 0 {
		t.Fatalf("reads: %v", errs)
	}
	stored := f.p.TableRows(f.in.Realm(), "credentials")

	// Refusals, each of them a message from the platform.
	_, err = f.c.GetHistory(ctx, "credentials", &client.Query{FilterAnd: []client.Filter{client.Where("api_key", "LIKE", "sk-%")}})
	keep(err)
	_, err = f.c.AppendToTable(ctx, "credentials", credential{Tsp: t0, Machine: "m9", APIKey: secrets.Set(stored[0]["api_key"].(string))})
	keep(err)
	_, err = f.s.Verify(ctx, "credentials", "state", candidate, nil)
	keep(err)
	_, err = f.s.Verify(ctx, "credentials", "api_key", candidate, &client.Query{FilterAnd: []client.Filter{client.IsNull("api_key")}})
	keep(err)
	_, err = f.s.Verify(ctx, "readings", "temp", candidate, nil)
	keep(err)
	_, err = f.s.Reveal(ctx, "credentials", &client.Query{Limit: 101})
	keep(err)
	if len(errs) != 6 {
		t.Fatalf("%d refusals, want 6: %v", len(errs), errs)
	}

	res, err := f.s.Verify(ctx, "credentials", "api_key", candidate, &client.Query{Limit: 10})
	if err != nil || res.Match || res.Checked != 6 {
		t.Fatalf("verify: %+v, %v", res, err)
	}
	rows, err := f.s.Reveal(ctx, "credentials", &client.Query{Limit: 1})
	if err != nil || len(rows) != 1 || rows[0]["api_key"] != plain {
		t.Fatalf("reveal: %v, %v", rows, err)
	}

	// What may carry which.
	env := f.in.Env()
	frames := f.tap.recorded()
	calls := procedures(frames)
	revealAnswers := 0
	for i, fr := range frames {
		hasPlain, hasCand := bytes.Contains(fr.raw, []byte(plain)), bytes.Contains(fr.raw, []byte(candidate))
		call, _ := fr.msg.(*wamp.Call)
		verifyCall := call != nil && strings.HasPrefix(string(call.Procedure), "secret.verify.")
		switch {
		case fr.toPlatform && hasPlain && !isWrite(fr.msg, env):
			t.Errorf("frame %d to the platform carries the plaintext and is no write: %T %v", i, fr.msg, fr.msg)
		case fr.toPlatform && hasCand && !verifyCall:
			t.Errorf("frame %d to the platform carries the candidate and is no verify call: %T %v", i, fr.msg, fr.msg)
		case !fr.toPlatform && hasCand:
			t.Errorf("frame %d from the platform carries the candidate: %T %v", i, fr.msg, fr.msg)
		case !fr.toPlatform && hasPlain:
			r, ok := fr.msg.(*wamp.Result)
			if !ok || !strings.HasPrefix(calls[r.Request], "secret.reveal.") {
				t.Errorf("frame %d from the platform carries the plaintext and answers no reveal: %T %v", i, fr.msg, fr.msg)
			}
			revealAnswers++
		}
	}
	if revealAnswers != 1 {
		t.Errorf("%d reveal answers carry the plaintext, want 1", revealAnswers)
	}

	var nowhere []string
	for _, e := range errs {
		nowhere = append(nowhere, e.Error())
	}
	mu.Lock()
	nowhere = append(nowhere, fmt.Sprint(fed), fmt.Sprint(stored), fmt.Sprint(f.p.TableRows(f.in.Realm(), "error-logs")))
	mu.Unlock()
	nowhere = append(nowhere, f.plog.String(), f.clog.String())
	for _, s := range nowhere {
		if strings.Contains(s, plain) || strings.Contains(s, candidate) {
			t.Errorf("the plaintext or the candidate in %q", s)
		}
	}
	if !strings.Contains(f.plog.String(), "session admitted") {
		t.Error("the platform's log was not captured")
	}
}

// verifyRewrite makes the tap answer every call of secret.verify.<t> with
// answer instead of the platform's answer.
func verifyRewrite(tp *tap, answer func(req wamp.ID) wamp.Message) func(wamp.Message) wamp.Message {
	return func(m wamp.Message) wamp.Message {
		r, ok := m.(*wamp.Result)
		if !ok || !strings.HasPrefix(procedures(tp.recorded())[r.Request], "secret.verify.") {
			return m
		}
		return answer(r.Request)
	}
}

// TestVerifyFailsClosed: only a boolean true is a match; checked may be
// a float; an answer that is not an object is an error and no match.
func TestVerifyFailsClosed(t *testing.T) {
	f := newTapped(t)
	ctx := ctxT(t)
	f.put(t, credential{Tsp: t0, Machine: "m1", APIKey: secrets.Set("k1")})
	for _, tc := range []struct {
		name string
		args wamp.List
		want secrets.VerifyResult
		bad  bool
	}{
		{"as the platform answers", wamp.List{map[string]any{"match": true, "checked": 1}}, secrets.VerifyResult{Match: true, Checked: 1}, false},
		{"checked as a float", wamp.List{map[string]any{"match": true, "checked": 2.0}}, secrets.VerifyResult{Match: true, Checked: 2}, false},
		{"match as text", wamp.List{map[string]any{"match": "true", "checked": 1}}, secrets.VerifyResult{Checked: 1}, false},
		{"match as a number", wamp.List{map[string]any{"match": 1, "checked": 1}}, secrets.VerifyResult{Checked: 1}, false},
		{"match null", wamp.List{map[string]any{"match": nil, "checked": 1}}, secrets.VerifyResult{Checked: 1}, false},
		{"no match field", wamp.List{map[string]any{"checked": 1}}, secrets.VerifyResult{Checked: 1}, false},
		{"checked as text", wamp.List{map[string]any{"match": true, "checked": "1"}}, secrets.VerifyResult{Match: true}, false},
		{"negative checked", wamp.List{map[string]any{"match": false, "checked": -3}}, secrets.VerifyResult{}, false},
		{"a list", wamp.List{wamp.List{true, 1}}, secrets.VerifyResult{}, true},
		{"a boolean", wamp.List{true}, secrets.VerifyResult{}, true},
		{"null", wamp.List{nil}, secrets.VerifyResult{}, true},
		{"nothing", nil, secrets.VerifyResult{}, true},
	} {
		f.tap.setRewrite(verifyRewrite(f.tap, func(req wamp.ID) wamp.Message {
			return &wamp.Result{Request: req, Details: wamp.Dict{}, Arguments: tc.args}
		}))
		res, err := f.s.Verify(ctx, "credentials", "api_key", "k1", nil)
		if res != tc.want || (err != nil) != tc.bad || (tc.bad && !errors.Is(err, secrets.ErrUnexpectedAnswer)) {
			t.Errorf("%s: %+v, %v; want %+v, error %v", tc.name, res, err, tc.want, tc.bad)
		}
	}
}

// TestCandidateNeverInErrors: a platform that quotes the candidate in a
// refusal (in a message, in kwargs, even as a key) has it withheld from
// Verify's error, which keeps its URI; no log line carries it.
func TestCandidateNeverInErrors(t *testing.T) {
	const candidate = "hunter2-candidate"
	f := newTapped(t)
	ctx := ctxT(t)
	f.put(t, credential{Tsp: t0, Machine: "m1", APIKey: secrets.Set("k1")})
	for _, tc := range []struct {
		name   string
		args   wamp.List
		kwargs wamp.Dict
	}{
		{"message", wamp.List{"candidate " + candidate + " is wrong"}, nil},
		{"nested", wamp.List{map[string]any{"input": []any{candidate}, "n": 1}}, wamp.Dict{"candidate": candidate}},
		{"key", nil, wamp.Dict{candidate: true}},
	} {
		f.tap.setRewrite(verifyRewrite(f.tap, func(req wamp.ID) wamp.Message {
			return &wamp.Error{Type: wamp.CALL, Request: req, Details: wamp.Dict{}, Error: "sys.dataservice.error.rate_limited", Arguments: tc.args, ArgumentsKw: tc.kwargs}
		}))
		_, err := f.s.Verify(ctx, "credentials", "api_key", candidate, nil)
		var we *client.WampError
		var oe *client.OpError
		if !errors.Is(err, secrets.ErrRateLimited) || !errors.As(err, &we) || !errors.As(err, &oe) || oe.Op != "VerifySecret" {
			t.Fatalf("%s: %v, want an OpError of VerifySecret keeping the URI", tc.name, err)
		}
		if s := err.Error() + fmt.Sprint(we.Args, we.Kwargs); strings.Contains(s, candidate) || !strings.Contains(s, "withheld") {
			t.Errorf("%s: the candidate is not withheld: %s", tc.name, s)
		}
	}
	f.tap.setRewrite(nil)
	// Refusals of the fake itself, and failures of the SDK.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, run := range []func() error{
		func() error { _, err := f.s.Verify(ctx, "credentials", "state", candidate, nil); return err },
		func() error {
			_, err := f.s.Verify(ctx, "credentials", "api_key", candidate, &client.Query{Limit: 500})
			return err
		},
		func() error { _, err := f.s.Verify(ctx, "readings", "temp", candidate, nil); return err },
		func() error { _, err := f.s.Verify(ctx, "", "api_key", candidate, nil); return err },
		func() error { _, err := f.s.Verify(canceled, "credentials", "api_key", candidate, nil); return err },
	} {
		if err := run(); err == nil || strings.Contains(err.Error(), candidate) {
			t.Errorf("error %v", err)
		}
	}
	if strings.Contains(f.plog.String()+f.clog.String(), candidate) {
		t.Error("a log line carries the candidate")
	}
}
