package agent_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// states follows a client's connection states.
type states struct {
	mu   sync.Mutex
	cond *sync.Cond
	seen []client.State
}

func newStates() *states {
	s := &states{}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *states) option() client.Option {
	return client.WithStateHandler(func(st client.State) {
		s.mu.Lock()
		s.seen = append(s.seen, st)
		s.mu.Unlock()
		s.cond.Broadcast()
	})
}

// await waits until the client reported want after position from in
// the history of states, and returns the position after it.
func (s *states) await(want client.State, from int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for i := from; i < len(s.seen); i++ {
			if s.seen[i] == want {
				return i + 1
			}
		}
		s.cond.Wait()
	}
}

func (s *states) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

func TestToolRestoredAfterRouterRestart(t *testing.T) {
	leakcheck.Check(t)
	st := newStates()
	w := newWeatherWorld(t, st.option())
	serveWeather(t, w)
	args := map[string]any{"city": "Oslo", "days": 1}
	if _, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", args); err != nil {
		t.Fatal(err)
	}
	mark := st.len()
	if err := w.p.Restart(); err != nil {
		t.Fatal(err)
	}
	// Connected is announced once every registration is restored.
	st.await(client.StateConnected, st.await(client.StateReconnecting, mark))
	call, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", args, platformtest.Convention(platformtest.ObjectArg))
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if got := fmtResult(call.Result); got != `{"celsius":[20],"city":"Oslo"}` {
		t.Errorf("result %s", got)
	}
}

// fmtResult renders a result as JSON.
func fmtResult(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
