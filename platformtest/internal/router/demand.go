// This file feeds the realm's Demand (internal/realm): a network
// session's SUBSCRIBE that could receive a feed topic (transformed.*) is
// counted before nexus sees it, and the session's entries are taken away
// when its link has ended, so a service can leave out a feed nobody could
// receive. Local sessions of tools (LocalSession) make every feed wanted.

package router

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// demandKey is one pattern a link counted in one Demand (a realm that
// restarted has a new one).
type demandKey struct {
	d *realm.Demand
	p realm.Pattern
}

// noteDemand counts a SUBSCRIBE of session s (w's) in its realm's Demand,
// once per pattern. It runs when the message goes on to nexus (on the read
// loop, or after an interception's delay), so the count is there before
// SUBSCRIBED goes out.
func (w *wsPeer) noteDemand(s *session, m *wamp.Subscribe) {
	match, _ := wamp.AsString(m.Options[wire.OptMatch])
	p := realm.NewPattern(string(m.Topic), match)
	if !p.Feed() {
		return
	}
	w.rt.mu.Lock()
	var rr *realmRuntime
	if w.gen != nil {
		rr = w.gen.realms[s.realm.Name]
	}
	w.rt.mu.Unlock()
	if rr == nil {
		return // no services on the realm: nothing publishes a feed
	}
	k := demandKey{d: rr.host.Demand, p: p}
	w.mu.Lock()
	_, had := w.demand[k]
	had = had || w.demandDropped // the link has ended: its session receives nothing
	if !had {
		if w.demand == nil {
			w.demand = map[demandKey]struct{}{}
		}
		w.demand[k] = struct{}{}
	}
	w.mu.Unlock()
	if !had {
		k.d.Add(p)
	}
}

// dropDemand takes w's entries out of the Demands it counted them in: its
// link has ended, so none of its subscriptions can receive anything.
func (w *wsPeer) dropDemand() {
	w.mu.Lock()
	held := w.demand
	w.demand, w.demandDropped = nil, true
	w.mu.Unlock()
	for k := range held {
		k.d.Remove(k.p)
	}
}
