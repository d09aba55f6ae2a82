// This file holds hookSet, the hooks of a Client sorted by interface once
// at New, so that an operation asks no type assertion, and the calls of
// each kind of hook.

package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// hookSet is the hooks given with WithHooks, by interface.
type hookSet struct {
	dialStart    []HookDialStart
	dialDone     []HookDialDone
	join         []HookJoin
	leave        []HookLeave
	state        []HookStateChange
	keepalive    []HookKeepalive
	sendStart    []HookSendStart
	publish      []HookPublish
	appends      []HookAppend
	call         []HookCall
	processStart []HookProcessStart
	event        []HookEvent
	invocation   []HookInvocation
	refusal      []HookRefusal
	n            int // hooks added
}

// errNoHook is New's error for a value given to WithHooks that implements
// no hook interface.
func errNoHook(h Hook) error {
	return fmt.Errorf("WithHooks: %T implements no hook interface of package client", h)
}

// add sorts h into the set; false when it implements no interface.
func (hs *hookSet) add(h Hook) bool {
	ok := false
	if x, is := h.(HookDialStart); is {
		hs.dialStart, ok = append(hs.dialStart, x), true
	}
	if x, is := h.(HookDialDone); is {
		hs.dialDone, ok = append(hs.dialDone, x), true
	}
	if x, is := h.(HookJoin); is {
		hs.join, ok = append(hs.join, x), true
	}
	if x, is := h.(HookLeave); is {
		hs.leave, ok = append(hs.leave, x), true
	}
	if x, is := h.(HookStateChange); is {
		hs.state, ok = append(hs.state, x), true
	}
	if x, is := h.(HookKeepalive); is {
		hs.keepalive, ok = append(hs.keepalive, x), true
	}
	if x, is := h.(HookSendStart); is {
		hs.sendStart, ok = append(hs.sendStart, x), true
	}
	if x, is := h.(HookPublish); is {
		hs.publish, ok = append(hs.publish, x), true
	}
	if x, is := h.(HookAppend); is {
		hs.appends, ok = append(hs.appends, x), true
	}
	if x, is := h.(HookCall); is {
		hs.call, ok = append(hs.call, x), true
	}
	if x, is := h.(HookProcessStart); is {
		hs.processStart, ok = append(hs.processStart, x), true
	}
	if x, is := h.(HookEvent); is {
		hs.event, ok = append(hs.event, x), true
	}
	if x, is := h.(HookInvocation); is {
		hs.invocation, ok = append(hs.invocation, x), true
	}
	if x, is := h.(HookRefusal); is {
		hs.refusal, ok = append(hs.refusal, x), true
	}
	if ok {
		hs.n++
	}
	return ok
}

// traffic reports whether any hook watches publications, appends or calls.
func (hs *hookSet) traffic() bool {
	return hs != nil && (len(hs.sendStart)+len(hs.publish)+len(hs.appends)+len(hs.call)+len(hs.refusal) > 0)
}

// processing reports whether any hook watches events or invocations.
func (hs *hookSet) processing() bool {
	return hs != nil && (len(hs.processStart)+len(hs.event)+len(hs.invocation)+len(hs.refusal) > 0)
}

// startSend runs the HookSendStart hooks in order, each given the
// context the one before returned.
func (hs *hookSet) startSend(ctx context.Context, op Op) context.Context {
	for _, h := range hs.sendStart {
		ctx = h.OnSendStart(ctx, op)
	}
	return ctx
}

// sent reports the end of a publish, append or call.
func (hs *hookSet) sent(ctx context.Context, op Op, out Outcome) {
	switch op.Kind {
	case OpPublish:
		for _, h := range hs.publish {
			h.OnPublish(ctx, op, out)
		}
	case OpAppend:
		for _, h := range hs.appends {
			h.OnAppend(ctx, op, out)
		}
	default:
		for _, h := range hs.call {
			h.OnCall(ctx, op, out)
		}
	}
	hs.refused(op, out.Err)
}

// refused runs the HookRefusal hooks when err carries a *WampError.
func (hs *hookSet) refused(op Op, err error) {
	if err == nil || len(hs.refusal) == 0 {
		return
	}
	var uri string
	var we *WampError
	var ee *engine.Error
	switch {
	case errors.As(err, &we):
		uri = we.URI
	case errors.As(err, &ee):
		uri = ee.URI
	default:
		return
	}
	for _, h := range hs.refusal {
		h.OnRefusal(op, uri)
	}
}

// startProcess runs the HookProcessStart hooks in order.
func (hs *hookSet) startProcess(ctx context.Context, op Op) context.Context {
	for _, h := range hs.processStart {
		ctx = h.OnProcessStart(ctx, op)
	}
	return ctx
}

// The connection hooks; hs may be nil.

func (hs *hookSet) dialing(url string) {
	if hs == nil {
		return
	}
	for _, h := range hs.dialStart {
		h.OnDialStart(url)
	}
}

func (hs *hookSet) dialed(url string, took time.Duration, err error) {
	if hs == nil {
		return
	}
	for _, h := range hs.dialDone {
		h.OnDialDone(url, took, err)
	}
}

func (hs *hookSet) joined(realm string, session uint64, reconnect bool) {
	if hs == nil {
		return
	}
	for _, h := range hs.join {
		h.OnJoin(realm, session, reconnect)
	}
}

func (hs *hookSet) left(realm string, session uint64, reason error) {
	if hs == nil {
		return
	}
	for _, h := range hs.leave {
		h.OnLeave(realm, session, reason)
	}
}

func (hs *hookSet) stateChanged(from, to State) {
	if hs == nil {
		return
	}
	for _, h := range hs.state {
		h.OnStateChange(from, to)
	}
}

// onPong is the engine's keepalive callback; nil when no hook wants it.
func (hs *hookSet) onPong() func(time.Duration) {
	if hs == nil || len(hs.keepalive) == 0 {
		return nil
	}
	return func(rtt time.Duration) {
		for _, h := range hs.keepalive {
			h.OnKeepalive(rtt)
		}
	}
}

// templateCache keeps Template by URI for the hooks, and the last one
// answered: a device mostly repeats one topic, which then costs a string
// comparison under a lock no other path takes.
type templateCache struct {
	mu            sync.Mutex
	byURI         map[string]string
	lastURI, last string
}

// maxTemplates bounds the templates a client keeps.
const maxTemplates = 1024

// template returns Template(uri), from the client's cache while it holds
// fewer than maxTemplates: an operation on a URI seen before allocates
// nothing for it.
func (c *Client) template(uri string) string {
	tc := &c.templates
	tc.mu.Lock()
	if uri != tc.lastURI {
		t, ok := tc.byURI[uri]
		if !ok {
			t = Template(uri)
			if len(tc.byURI) < maxTemplates {
				if tc.byURI == nil {
					tc.byURI = map[string]string{}
				}
				tc.byURI[uri] = t
			}
		}
		tc.lastURI, tc.last = uri, t
	}
	t := tc.last
	tc.mu.Unlock()
	return t
}

// opOf describes the operation method makes on uri; table is set for the
// operations of the data backend.
func (c *Client) opOf(method, uri, table string) Op {
	op := Op{Method: method, URI: uri, Template: c.template(uri), Table: table}
	switch {
	case method == "AppendToTable" || method == "AppendRowsToTable":
		op.Kind = OpAppend
	case strings.Contains(method, "Publish"):
		op.Kind = OpPublish
	default:
		op.Kind = OpCall
	}
	if op.Table == "" && (method == "PublishToTable" || method == "PublishRowsToTable") {
		op.Table = uri[strings.LastIndexByte(uri, '.')+1:]
	}
	return op
}
