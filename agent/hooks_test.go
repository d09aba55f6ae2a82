// This file tests the tools' observation hook.

package agent_test

import (
	"context"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/internal/leakcheck"
)

type toolLog struct {
	mu    sync.Mutex
	calls []agent.ToolCall
}

func (l *toolLog) OnTool(_ context.Context, c agent.ToolCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

func TestToolHook(t *testing.T) {
	leakcheck.Check(t)
	w := newWeatherWorld(t)
	log := &toolLog{}
	forecast := agent.Typed("weather.forecast", func(_ context.Context, a forecastArgs) (forecast, error) {
		return forecast{City: a.City}, nil
	}, agent.WithHooks(log))
	if _, err := agent.Serve(testCtx(t), w.c, w.tpl, forecast, historyTool()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", map[string]any{"city": "Oslo", "days": 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", map[string]any{"city": "Oslo", "days": 99}); err == nil {
		t.Fatal("a call with days out of range succeeded")
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.calls) != 2 {
		t.Fatalf("told %d tool calls, want 2: %+v", len(log.calls), log.calls)
	}
	ok, bad := log.calls[0], log.calls[1]
	if ok.Topic != "weather.forecast" || ok.Invalid || ok.Err != nil || ok.Took <= 0 {
		t.Errorf("valid call told as %+v", ok)
	}
	if !bad.Invalid || bad.Err == nil {
		t.Errorf("invalid call told as %+v", bad)
	}
}
