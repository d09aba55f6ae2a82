package platformtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
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
			old := joinInstallation(t, f.p, f.in1, json)
			req := old.newReq()
			first, ok := old.answer(req, &wamp.Register{Request: req, Procedure: proc, Options: wamp.Dict{}}).msg.(*wamp.Registered)
			if !ok {
				t.Fatal("first registration failed")
			}

			// Without force_reregister the procedure is taken.
			other := dialWire(t, f.p, false)
			other.mustJoin(f.in1.Realm(), f.d1.Serial(), f.d1.Serial())
			req = other.newReq()
			if got := errorURI(other.answer(req, &wamp.Register{Request: req, Procedure: proc, Options: wamp.Dict{}}).msg); got != wire.ErrProcedureExists {
				t.Fatalf("plain re-register: %q, want %s", got, wire.ErrProcedureExists)
			}

			// Another device may not take it over.
			intruder := joinInstallation(t, f.p, f.in2, false)
			req = intruder.newReq()
			force := wamp.Dict{wire.OptForceReregister: true}
			if got := errorURI(intruder.answer(req, &wamp.Register{Request: req, Procedure: proc, Options: force}).msg); got != wire.ErrNotAuthorized {
				t.Fatalf("foreign takeover: %q, want not_authorized", got)
			}

			req = other.newReq()
			second, ok := other.answer(req, &wamp.Register{Request: req, Procedure: proc, Options: force}).msg.(*wamp.Registered)
			if !ok {
				t.Fatal("takeover registration failed")
			}

			got := old.next()
			want := []any{int64(wamp.UNREGISTERED), int64(0), map[string]any{"registration": int64(first.Registration)}}
			if diff := cmp.Diff(want, normalizeRaw(got.raw)); diff != "" {
				t.Fatalf("old owner got (-want +got):\n%s", diff)
			}
			// Nothing else reached the old owner: its next answer is the
			// one to its own next request.
			req = old.newReq()
			old.send(&wamp.Call{Request: req, Procedure: wire.SessionGetProc, Options: wamp.Dict{}, Arguments: wamp.List{1}})
			if f := old.next(); requestOf(f.msg) != req {
				t.Fatalf("old owner got %s %+v before its call's answer", f.msg.MessageType(), f.msg)
			}

			// Calls reach the new owner.
			caller := joinInstallation(t, f.p, f.in2, false)
			req = caller.newReq()
			caller.send(&wamp.Call{Request: req, Procedure: proc, Options: wamp.Dict{}})
			inv, ok := other.next().msg.(*wamp.Invocation)
			if !ok || inv.Registration != second.Registration {
				t.Fatalf("new owner got %+v, want an invocation of %d", inv, second.Registration)
			}
			other.send(&wamp.Yield{Request: inv.Request, Options: wamp.Dict{}, Arguments: wamp.List{"new"}})
			res, ok := caller.next().msg.(*wamp.Result)
			if !ok || len(res.Arguments) != 1 || res.Arguments[0] != "new" {
				t.Fatalf("caller got %+v", res)
			}
		})
	}
}

// normalizeRaw converts a decoded raw message for comparison.
func normalizeRaw(raw []any) []any { return wirevalue.CloneList(raw) }
