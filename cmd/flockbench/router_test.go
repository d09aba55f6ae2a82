// This file holds the tests of the router benchmark: a short run of
// fan-out, calls and joins on the three routers (flockd played by this
// test binary serving a platform), and its pure pieces.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// TestRouterRun runs fan-out to 10 subscribers, routed calls and joins
// briefly on every router and checks that each counted operations and
// read the router's memory, that flockd lost no event, and that flockd's
// rows carry the ratios to both nexus routers; then the same run as a
// table.
func TestRouterRun(t *testing.T) {
	leakcheck.Check(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testRoleVar, "flockd")
	args := []string{"-router", "-flockd", exe, "-duration", "400ms", "-warmup", "100ms", "-router-scenarios", "fan10,call16,join"}
	var out, log bytes.Buffer
	if err := run(context.Background(), append(args, "-json"), nil, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var doc struct {
		Count   int            `json:"count"`
		Results []routerResult `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	got := map[string]routerResult{}
	for _, r := range doc.Results {
		got[r.Scenario+"/"+r.Router] = r
	}
	for _, sc := range []string{"fan10", "call16", "join"} {
		for _, rt := range routerNames {
			r, ok := got[sc+"/"+rt]
			if !ok {
				t.Errorf("%s on %s: no result", sc, rt)
				continue
			}
			if r.Ops <= 0 || r.OpsPerSec <= 0 || r.RSSMiB <= 0 || r.PeakMiB < r.RSSMiB {
				t.Errorf("%s on %s: figures not measured: %+v", sc, rt, r)
			}
			// flockd loses no event: it queues up to its byte bound. A
			// bare nexus drops what its subscriber's 64-slot queue cannot
			// take, which a busy machine makes happen: its losses are
			// counted (the lost column), not a failure.
			if rt == routerFlockd && r.Lost != 0 {
				t.Errorf("%s on %s: %d events lost", sc, rt, r.Lost)
			}
			if rt == routerFlockd && r.CPUMicros > 0 && (r.VsNexus == 0 || r.VsNexusCRA == 0 || r.RSSVsNexus == 0) {
				t.Errorf("%s on flockd: ratios missing: %+v", sc, r)
			}
		}
	}
	out.Reset()
	if err := run(context.Background(), append(args, "-routers", "flockd,nexus", "-router-scenarios", "join"), nil, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, want := range []string{"CPU ×nexus-cra", "RSS ×nexus", "join      flockd", "join      nexus"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRouterRatios: the ratios are the median of the per-round ratios,
// and the memory ratio is nexus's RSS in the same round.
func TestRouterRatios(t *testing.T) {
	mk := func(router string, cpu ...float64) routerResult {
		var ss []routerSample
		for _, c := range cpu {
			ss = append(ss, routerSample{Ops: 1000, Wall: time.Second, CPU: time.Duration(c*1000) * time.Microsecond, RSS: int64(c) << 20})
		}
		return newRouterResult(routerScenario{Name: "fan10", Unit: "event"}, router, ss)
	}
	rs := []routerResult{mk(routerFlockd, 10, 30, 12), mk(routerNexus, 10, 20, 8), mk(routerNexusCRA, 5, 15, 12)}
	addRouterRatios(rs)
	type row struct{ CPU, VsNexus, VsCRA, RSS, VsRSS float64 }
	gotRows := []row{}
	for _, r := range rs {
		gotRows = append(gotRows, row{r.CPUMicros, r.VsNexus, r.VsNexusCRA, r.RSSMiB, r.RSSVsNexus})
	}
	want := []row{
		{CPU: 12, VsNexus: 1.5, VsCRA: 2, RSS: 12, VsRSS: 1.5}, // ratios 1, 1.5, 1.5 and 2, 2, 1
		{CPU: 10, VsNexus: 1, VsCRA: 4.0 / 3, RSS: 10, VsRSS: 1},
		{CPU: 12, VsNexus: 0.75, VsCRA: 1, RSS: 12, VsRSS: 0.75},
	}
	if diff := cmp.Diff(want, gotRows); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPeerMessages: a pre-encoded message takes any request ID, and the
// header reader finds the type and first ID of what routers send.
func TestPeerMessages(t *testing.T) {
	tpl, err := preencode(&wamp.Call{Options: wamp.Dict{}, Procedure: "p", Arguments: wamp.List{row()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{1, 1 << 40} {
		code, got, err := msgHeader(tpl.with(id))
		if err != nil || code != 48 || got != id {
			t.Errorf("CALL with ID %d read as type %d, ID %d, %v", id, code, got, err)
		}
	}
	for _, c := range []struct {
		m        wamp.Message
		code, id int
	}{
		{&wamp.Event{Subscription: 77, Publication: 5, Details: wamp.Dict{}}, wampEvent, 77},
		{&wamp.Error{Type: wamp.CALL, Request: 300, Details: wamp.Dict{}, Error: "e"}, wampError, 300},
		{&wamp.Goodbye{Reason: "r", Details: wamp.Dict{}}, wampGoodbye, 0},
		{&wamp.Invocation{Request: 70000, Registration: 1, Details: wamp.Dict{}}, wampInvocation, 70000},
	} {
		b, err := (&serialize.MessagePackSerializer{}).Serialize(c.m)
		if err != nil {
			t.Fatal(err)
		}
		code, id, err := msgHeader(b)
		if err != nil || code != c.code || id != uint64(c.id) {
			t.Errorf("%s read as type %d, ID %d, %v", c.m.MessageType(), code, id, err)
		}
	}
}
