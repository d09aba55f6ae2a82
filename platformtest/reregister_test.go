package platformtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestForceReregisterTakeover: a second session of the same device
// registering with force_reregister takes the procedure over; the first
// owner gets UNREGISTERED with request 0 and details.registration, and
// nothing of the platform's own exchange.
func TestForceReregisterTakeover(t *testing.T) {
	for _, json := range []bool{false, true} {
		name := "msgpack"
		if json {
			name = "json"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			proc := wamp.URI(wire.DeviceFunction(2, 42, 26, "DEV", "fn"))
			old := worldtest.JoinInstallation(t, f.p, f.in1, json)
			req := old.NewReq()
			first, ok := old.Answer(req, &wamp.Register{Request: req, Procedure: proc, Options: wamp.Dict{}}).Msg.(*wamp.Registered)
			if !ok {
				t.Fatal("first registration failed")
			}

			// Without force_reregister the procedure is taken.
			other := worldtest.DialWire(t, f.p, false)
			other.MustJoin(f.in1.Realm(), f.d1.Serial(), f.d1.Serial())
			req = other.NewReq()
			if got := worldtest.ErrorURI(other.Answer(req, &wamp.Register{Request: req, Procedure: proc, Options: wamp.Dict{}}).Msg); got != wire.ErrProcedureExists {
				t.Fatalf("plain re-register: %q, want %s", got, wire.ErrProcedureExists)
			}

			// Another device may not take it over.
			intruder := worldtest.JoinInstallation(t, f.p, f.in2, false)
			req = intruder.NewReq()
			force := wamp.Dict{wire.OptForceReregister: true}
			if got := worldtest.ErrorURI(intruder.Answer(req, &wamp.Register{Request: req, Procedure: proc, Options: force}).Msg); got != wire.ErrNotAuthorized {
				t.Fatalf("foreign takeover: %q, want not_authorized", got)
			}

			req = other.NewReq()
			second, ok := other.Answer(req, &wamp.Register{Request: req, Procedure: proc, Options: force}).Msg.(*wamp.Registered)
			if !ok {
				t.Fatal("takeover registration failed")
			}

			got := old.Next()
			want := []any{int64(wamp.UNREGISTERED), int64(0), map[string]any{"registration": int64(first.Registration)}}
			if diff := cmp.Diff(want, normalizeRaw(got.Raw)); diff != "" {
				t.Fatalf("old owner got (-want +got):\n%s", diff)
			}
			// Nothing else reached the old owner: its next answer is the
			// one to its own next request.
			req = old.NewReq()
			old.Send(&wamp.Call{Request: req, Procedure: wire.SessionGetProc, Options: wamp.Dict{}, Arguments: wamp.List{1}})
			if f := old.Next(); worldtest.RequestOf(f.Msg) != req {
				t.Fatalf("old owner got %s %+v before its call's answer", f.Msg.MessageType(), f.Msg)
			}

			// Calls reach the new owner.
			caller := worldtest.JoinInstallation(t, f.p, f.in2, false)
			req = caller.NewReq()
			caller.Send(&wamp.Call{Request: req, Procedure: proc, Options: wamp.Dict{}})
			inv, ok := other.Next().Msg.(*wamp.Invocation)
			if !ok || inv.Registration != second.Registration {
				t.Fatalf("new owner got %+v, want an invocation of %d", inv, second.Registration)
			}
			other.Send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Arguments: wamp.List{"new"}})
			res, ok := caller.Next().Msg.(*wamp.Result)
			if !ok || len(res.Arguments) != 1 || res.Arguments[0] != "new" {
				t.Fatalf("caller got %+v", res)
			}
		})
	}
}

// normalizeRaw converts a decoded raw message for comparison.
func normalizeRaw(raw []any) []any { return wirevalue.CloneList(raw) }
