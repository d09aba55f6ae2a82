package router

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// probeService registers procedures that show a test what their handler
// saw: probe.echo answers the INVOCATION's details and payload,
// probe.fail an error, probe.block waits for its context or a release,
// and <other swarm>.probe.other may not be called by role app.
type probeService struct {
	started chan context.Context // probe.block's contexts, as calls start
	release chan struct{}        // one probe.block returns per value
}

func (p *probeService) Name() string { return "probe" }

func (p *probeService) Attach(h *realm.Host) error {
	echo := func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return client.InvokeResult{Args: append(wamp.List{inv.Details}, inv.Arguments...), Kwargs: inv.ArgumentsKw}
	}
	for uri, fn := range map[string]client.InvocationHandler{
		"probe.echo": echo,
		strconv.Itoa(h.Realm.Swarm+1) + ".probe.other": echo,
		"probe.fail": func(context.Context, *wamp.Invocation) client.InvokeResult {
			return client.InvokeResult{Err: "probe.error.refused", Args: wamp.List{"no"}, Kwargs: wamp.Dict{"why": "test"}}
		},
		"probe.block": func(ctx context.Context, _ *wamp.Invocation) client.InvokeResult {
			p.started <- ctx
			select {
			case <-ctx.Done():
				return client.InvocationCanceled
			case <-p.release:
				return client.InvokeResult{Args: wamp.List{"late"}}
			}
		},
	} {
		if err := h.Register(uri, fn, nil); err != nil {
			return err
		}
	}
	return nil
}

// TestDirectCallsAnswerAsNexus calls the services' procedures the way
// the router serves them itself (plain calls) and the way nexus's dealer
// does (the same calls with an option only nexus takes), and checks that
// both give the caller the same answers and the handler the same
// invocation, contexts and cancellations.
func TestDirectCallsAnswerAsNexus(t *testing.T) {
	probe := &probeService{started: make(chan context.Context, 4), release: make(chan struct{})}
	var direct atomic.Int64
	tr := newTestRouterWith(t, Config{}, func(rt *Router) {
		rt.onDirect = func(string) { direct.Add(1) }
		rt.AddService(probe)
	})
	roles := wamp.Dict{"caller": wamp.Dict{"features": wamp.Dict{"call_canceling": true, "call_timeout": true}}}
	otherSwarm := wamp.URI(strconv.Itoa(tr.realm.Swarm+1) + ".probe.other")

	// Each scenario runs on a new session s and returns what it saw, for
	// comparison between the two ways.
	scenarios := []struct {
		name string
		want []string // kindOf each answer
		run  func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message
	}{
		{"result", []string{"RESULT"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			s.send(&wamp.Call{Request: 7, Options: opts(nil), Procedure: "probe.echo",
				Arguments: wamp.List{1, "a"}, ArgumentsKw: wamp.Dict{"k": "v"}})
			return []wamp.Message{s.recv()}
		}},
		{"error", []string{"ERROR probe.error.refused [no]"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			s.send(&wamp.Call{Request: 7, Options: opts(nil), Procedure: "probe.fail"})
			return []wamp.Message{s.recv()}
		}},
		{"not authorized", []string{"ERROR wamp.error.not_authorized []"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			s.send(&wamp.Call{Request: 7, Options: opts(nil), Procedure: otherSwarm})
			return []wamp.Message{s.recv()}
		}},
		{"timeout", []string{"ERROR wamp.error.timeout [call timeout]"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			s.send(&wamp.Call{Request: 7, Options: opts(wamp.Dict{"timeout": 50}), Procedure: "probe.block"})
			ctx := <-probe.started
			got := s.recv()
			<-ctx.Done() // the handler is interrupted
			return []wamp.Message{got}
		}},
		{"cancel", []string{"ERROR wamp.error.canceled []", "ERROR wamp.error.canceled []", "ERROR wamp.error.canceled []"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			var got []wamp.Message
			for _, mode := range []string{"", "kill", "killnowait"} {
				s.send(&wamp.Call{Request: 7, Options: opts(nil), Procedure: "probe.block"})
				ctx := <-probe.started
				s.send(&wamp.Cancel{Request: 7, Options: wamp.Dict{"mode": mode}})
				got = append(got, s.recv())
				<-ctx.Done()
			}
			return got
		}},
		{"cancel skip", []string{"CANCEL ERROR wamp.error.invalid_argument [invalid cancel mode bogus]", "ERROR wamp.error.canceled []", "ERROR probe.error.refused [no]"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			s.send(&wamp.Call{Request: 7, Options: opts(nil), Procedure: "probe.block"})
			ctx := <-probe.started
			s.send(&wamp.Cancel{Request: 7, Options: wamp.Dict{"mode": "bogus"}})
			got := []wamp.Message{s.recv()}
			s.send(&wamp.Cancel{Request: 7, Options: wamp.Dict{"mode": "skip"}})
			got = append(got, s.recv())
			if ctx.Err() != nil {
				t.Error("mode skip interrupted the handler")
			}
			probe.release <- struct{}{}
			// Its answer is dropped: the next message answers the next call.
			s.send(&wamp.Call{Request: 8, Options: opts(nil), Procedure: "probe.fail"})
			return append(got, s.recv())
		}},
		{"realm restarts", []string{"ERROR wamp.error.canceled [callee gone]", "GOODBYE wamp.close.system_shutdown"}, func(t *testing.T, s *rawSession, opts func(wamp.Dict) wamp.Dict) []wamp.Message {
			s.send(&wamp.Call{Request: 7, Options: opts(nil), Procedure: "probe.block"})
			<-probe.started
			done := make(chan struct{})
			go func() {
				defer close(done)
				tr.rt.RestartRealms([]string{tr.realm.Name})
			}()
			got := []wamp.Message{s.recv(), s.recv()}
			<-done
			return got
		}},
	}
	ways := []struct {
		name   string
		direct bool
		opts   func(wamp.Dict) wamp.Dict
	}{
		{"direct", true, func(o wamp.Dict) wamp.Dict {
			if o == nil {
				o = wamp.Dict{}
			}
			return o
		}},
		{"nexus", false, func(o wamp.Dict) wamp.Dict {
			c := wamp.Dict{"x_route": "nexus"} // an option the router leaves to nexus
			for k, v := range o {
				c[k] = v
			}
			return c
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var saw [2][]wamp.Message
			var sid [2]wamp.ID
			for i, way := range ways {
				s := tr.join(t, 0, false, roles, 0)
				sid[i] = s.id
				before := direct.Load()
				saw[i] = sc.run(t, s, way.opts)
				if served := direct.Load() > before; served != way.direct {
					t.Errorf("%s: served by the router itself: %v, want %v", way.name, served, way.direct)
				}
			}
			// The caller's session ID differs; the rest must not.
			for i := range saw {
				for _, m := range saw[i] {
					if r, ok := m.(*wamp.Result); ok && len(r.Arguments) > 0 {
						d, _ := r.Arguments[0].(map[string]any)
						if got, _ := wamp.AsID(d["caller"]); got != sid[i] {
							t.Errorf("%s: details.caller = %v, want %v", ways[i].name, d["caller"], sid[i])
						}
						delete(d, "caller")
					}
				}
			}
			if diff := cmp.Diff(saw[1], saw[0]); diff != "" {
				t.Errorf("direct answers differ from nexus's (-nexus +direct):\n%s", diff)
			}
			var kinds []string
			for _, m := range saw[0] {
				kinds = append(kinds, kindOf(m))
			}
			if diff := cmp.Diff(sc.want, kinds); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

// kindOf names an answer: its type, and an ERROR's URI and arguments (a
// CANCEL's ERROR says so), a GOODBYE's reason.
func kindOf(m wamp.Message) string {
	switch m := m.(type) {
	case *wamp.Error:
		k := fmt.Sprintf("ERROR %s %v", m.Error, m.Arguments)
		if m.Type == wamp.CANCEL {
			k = "CANCEL " + k
		}
		return k
	case *wamp.Goodbye:
		return "GOODBYE " + string(m.Reason)
	}
	return m.MessageType().String()
}
