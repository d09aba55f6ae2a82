// This file serves a network session's CALL of a platform service
// without nexus (realm.Host.Serve, realm/direct.go): the link's reader
// checks the call as nexus would, hands it to one of a fixed set of
// workers (Router.calls; the services' pool when they are all busy and
// the queue is full), and the worker hands the RESULT or ERROR to the
// link's writer. The caller sees what nexus's dealer would send, in the
// same cases:
//
//   - the INVOCATION's details: progress false, caller, caller_authid,
//     caller_authrole, procedure; its arguments carry the CALL's trace
//     (authorize.go);
//   - a refused CALL: ERROR wamp.error.not_authorized;
//   - the handler's error: ERROR with its URI and payload;
//   - options.timeout (ms): at the deadline ERROR wamp.error.timeout
//     ["call timeout"] at once, the handler's context canceled, its answer
//     dropped (nexus's killnowait);
//   - CANCEL: ERROR wamp.error.canceled at once; modes kill and killnowait
//     (the default) cancel the handler's context, skip does not; another
//     mode is ERROR wamp.error.invalid_argument;
//   - the platform session ending (the realm going down): ERROR
//     wamp.error.canceled ["callee gone"];
//   - the caller leaving: the handler goes on, its answer is dropped.
//
// Anything nexus's dealer does that this does not (progressive calls and
// results, payload passthru, pattern registrations, a procedure a network
// session registered) goes to nexus as before.

package router

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// directCall is a CALL the router serves itself, until it is answered.
type directCall struct {
	w        *wsPeer
	req      wamp.ID
	answered atomic.Bool
	cancel   context.CancelFunc
	timer    *time.Timer // options.timeout; nil without one
}

// directCallable reports whether a CALL with these options asks only for
// what serveDirect does.
func directCallable(opts wamp.Dict) bool {
	for k, v := range opts {
		switch k {
		case wamp.OptTimeout, wire.OptDiscloseMe, wire.OptTraceParent, wire.OptTraceState:
		case wamp.OptProgress, wamp.OptReceiveProgress:
			if on, _ := v.(bool); on {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// serveDirect serves m from s itself when its procedure is a service's
// (realm.Host.Serve) and m asks nothing only nexus does; false when m
// goes to nexus.
func (rt *Router) serveDirect(w *wsPeer, s *session, m *wamp.Call) bool {
	if !directCallable(m.Options) {
		return false
	}
	rr := rt.runtimeOf(w, s.realm.Name)
	if rr == nil || rr.host.Session == nil {
		return false
	}
	h := rr.host
	p, ok := h.Serve(string(m.Procedure))
	if !ok {
		return false
	}
	if rt.onDirect != nil {
		rt.onDirect(string(m.Procedure))
	}
	if !permit(s, m) {
		h.Served()
		rt.log.Debug("call not authorized", "session", s.id, "procedure", string(m.Procedure))
		w.enqueue(&wamp.Error{Type: wamp.CALL, Request: m.Request, Details: wamp.Dict{}, Error: wamp.ErrNotAuthorized})
		return true
	}
	inv := &wamp.Invocation{
		Request:      wamp.ID(rt.directSeq.Add(1)),
		Registration: p.Registration,
		Details: wamp.Dict{
			wamp.OptProgress:  false,
			wamp.RoleCaller:   wamp.ID(s.id),
			"caller_authid":   s.authID,
			"caller_authrole": s.role,
			wamp.OptProcedure: m.Procedure, // nexus adds it for a registration without options.match
		},
		Arguments:   m.Arguments,
		ArgumentsKw: m.ArgumentsKw,
	}
	ctx, cancel := context.WithCancel(p.Ctx)
	c := &directCall{w: w, req: m.Request, cancel: cancel}
	w.mu.Lock()
	if w.direct == nil {
		w.direct = map[wamp.ID]*directCall{}
	}
	w.direct[m.Request] = c
	w.mu.Unlock()
	if ms, _ := wamp.AsInt64(m.Options[wamp.OptTimeout]); ms > 0 {
		c.timer = time.AfterFunc(time.Duration(ms)*time.Millisecond, func() {
			c.answer(&wamp.Error{Type: wamp.CALL, Request: c.req, Details: wamp.Dict{}, Error: wamp.ErrTimeout,
				Arguments: wamp.List{"call timeout"}}, true)
		})
	}
	run := func() {
		defer h.Served()
		c.finish(h, p.Handler(ctx, inv))
	}
	switch {
	case rt.calls.TryGo(run):
	case h.Pool != nil:
		h.Pool.Go(run)
	default:
		go run()
	}
	return true
}

// finish answers the call with the handler's result, unless a timeout, a
// CANCEL or the end of the platform session answered it first.
func (c *directCall) finish(h *realm.Host, res client.InvokeResult) {
	defer c.cancel() // also after a CANCEL in mode skip, which left it running
	if c.timer != nil {
		c.timer.Stop()
	}
	var msg wamp.Message
	switch {
	case h.Ended():
		msg = &wamp.Error{Type: wamp.CALL, Request: c.req, Details: wamp.Dict{}, Error: wamp.ErrCanceled,
			Arguments: wamp.List{"callee gone"}}
	case res.Err != "":
		msg = &wamp.Error{Type: wamp.CALL, Request: c.req, Details: wamp.Dict{}, Error: res.Err,
			Arguments: res.Args, ArgumentsKw: res.Kwargs}
	default:
		msg = &wamp.Result{Request: c.req, Details: wamp.Dict{}, Arguments: res.Args, ArgumentsKw: res.Kwargs}
	}
	c.answer(msg, true)
}

// answer sends msg as the call's answer unless it has one already, and
// forgets the call; interrupt cancels the handler's context.
func (c *directCall) answer(msg wamp.Message, interrupt bool) {
	if !c.answered.CompareAndSwap(false, true) {
		return
	}
	if interrupt {
		c.cancel()
	}
	w := c.w
	w.mu.Lock()
	if w.direct[c.req] == c {
		delete(w.direct, c.req)
	}
	w.mu.Unlock()
	w.enqueue(msg)
}

// cancelDirect answers a CANCEL of a call the router serves itself; false
// when m is not for one of them (nexus handles it).
func (w *wsPeer) cancelDirect(m *wamp.Cancel) bool {
	w.mu.Lock()
	c := w.direct[m.Request]
	w.mu.Unlock()
	if c == nil {
		return false
	}
	mode, _ := wamp.AsString(m.Options[wamp.OptMode])
	switch mode {
	case "", wamp.CancelModeKillNoWait, wamp.CancelModeKill, wamp.CancelModeSkip:
	default:
		w.enqueue(&wamp.Error{Type: wamp.CANCEL, Request: m.Request, Details: wamp.Dict{}, Error: wamp.ErrInvalidArgument,
			Arguments: wamp.List{"invalid cancel mode " + mode}})
		return true
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.answer(&wamp.Error{Type: wamp.CALL, Request: m.Request, Details: wamp.Dict{}, Error: wamp.ErrCanceled},
		mode != wamp.CancelModeSkip)
	return true
}
