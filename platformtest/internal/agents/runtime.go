// This file holds the Runtime: the service attached to every realm (it
// registers nothing; it keeps each realm's current Host to call devices
// through), the parsed agent templates, and the record of tool calls.
//
// It serves no URI: the platform's agent runtime is a caller.

package agents

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// Defaults of the runtime.
const (
	// DefaultRecordLimit is how many tool calls the record keeps (the
	// newest).
	DefaultRecordLimit = 10000
	// maxTemplates bounds the cache of parsed agent templates.
	maxTemplates = 64
	// MaxDelegation bounds how deep delegate tools may nest in a run.
	MaxDelegation = 8
)

// Config is what the runtime needs from the platform.
type Config struct {
	Clock realm.Clock
	Log   *slog.Logger
	// RecordLimit bounds the record of tool calls; 0 means
	// DefaultRecordLimit.
	RecordLimit int
}

// Runtime is the agent runtime of one platform. It is safe for
// concurrent use.
type Runtime struct {
	clock realm.Clock
	log   *slog.Logger
	limit int

	mu        sync.Mutex
	hosts     map[string]*realm.Host             // realm name → its current Host
	templates map[string]*template.AgentTemplate // YAML → parsed
	record    []Call
}

// New returns a runtime.
func New(cfg Config) *Runtime {
	limit := cfg.RecordLimit
	if limit <= 0 {
		limit = DefaultRecordLimit
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runtime{clock: cfg.Clock, log: log, limit: limit,
		hosts: map[string]*realm.Host{}, templates: map[string]*template.AgentTemplate{}}
}

// Name returns "agents".
func (*Runtime) Name() string { return "agents" }

// Attach keeps h as the Host of its realm: tool calls on that realm go
// through its session. It registers nothing.
func (rt *Runtime) Attach(h *realm.Host) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.hosts[h.Realm.Name] = h
	return nil
}

// host returns the current Host of a realm, nil when it never came up.
func (rt *Runtime) host(name string) *realm.Host {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.hosts[name]
}

// template parses an agent template, from the cache when it was parsed
// before.
func (rt *Runtime) template(src string) (*template.AgentTemplate, error) {
	if strings.TrimSpace(src) == "" {
		return nil, ErrNoTemplate
	}
	rt.mu.Lock()
	t := rt.templates[src]
	rt.mu.Unlock()
	if t != nil {
		return t, nil
	}
	t, _, err := template.ParseAgents([]byte(src))
	if err != nil { // checked when the app was added or released
		return nil, fmt.Errorf("%w: %v", ErrNoTemplate, err)
	}
	rt.mu.Lock()
	if len(rt.templates) >= maxTemplates {
		clear(rt.templates)
	}
	rt.templates[src] = t
	rt.mu.Unlock()
	return t, nil
}

// remember adds a call to the record.
func (rt *Runtime) remember(c Call) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.record) >= rt.limit {
		rt.record = append(rt.record[:0], rt.record[len(rt.record)-rt.limit+1:]...)
	}
	rt.record = append(rt.record, c)
}

// Calls returns a copy of the record of tool calls, in the order they
// were answered.
func (rt *Runtime) Calls() []Call {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]Call, len(rt.record))
	for i, c := range rt.record {
		out[i] = c.clone()
	}
	return out
}

// ClearCalls forgets the record.
func (rt *Runtime) ClearCalls() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.record = nil
}
