// This file holds the realtime feeds of the data backend (docs/wire.md §7.8).
// It publishes:
//
//	transformed.<t>       args [row] after each accepted single-row write
//	transformed.bulk.<t>  args [[row, …]] after each accepted bulk write
//	transformed.<view>    args [[row, …]] when a transform's rows are set
//	                      (the whole view, at most 3000 rows, view order
//	                      reversed: one "schedule tick")
//
// A feed nobody could receive is not published (realm.Demand counts the
// subscriptions). Rows are typed per column (tsp as ISO 8601 text) with
// device_key and authid, secrets masked. Private tables, private
// transforms and error-logs are published with exclude_authrole
// ["app_reader"], so cross-app readers never see them. Rows inserted by
// DB.InsertRows are not published.

package fleetdb

import (
	"slices"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// maxViewFeedRows is the most rows a transform publishes per tick.
const maxViewFeedRows = 3000

// publishFeed publishes the accepted writes ps on t's feed (its bulk feed
// with bulk set) from the realm's service session, once the store has
// them, and only when a subscriber could receive them (realm.Demand):
// otherwise it neither makes the rows nor publishes. With tr set (an
// append whose call carried a trace context) the events carry tr, the
// store's continuation of the writer's trace (docs/wire.md §13).
func (t *table) publishFeed(h *realm.Host, ps []*pending, bulk bool, tr realm.Trace) {
	topic := t.feedTopic
	if bulk {
		topic = t.bulkFeedTopic
	}
	if h == nil || h.Session == nil || len(ps) == 0 || !h.Wanted(topic) {
		return
	}
	private := t.private || t.system
	opts := sharedFeedOptions(private)
	if tr.Parent != "" {
		opts = feedOptions(private)
		tr.AddTo(opts)
	}
	var err error
	if bulk {
		list := make(wamp.List, len(ps))
		for i, p := range ps {
			list[i] = t.feedRow(p.Vals, p.present, p.Merged)
		}
		err = h.Publish(topic, opts, wamp.List{list}, nil)
	} else {
		for _, p := range ps {
			if err = h.Publish(topic, opts, wamp.List{t.feedRow(p.Vals, p.present, p.Merged)}, nil); err != nil {
				break
			}
		}
	}
	if err != nil {
		h.Log.Debug("fleetdb: feed not published", "table", t.name, "err", err)
	}
}

// publishView publishes a transform's view as one event: at most 3000
// rows, in reverse view order.
func publishView(h *realm.Host, v *view, rows []map[string]any) {
	if h == nil || h.Session == nil {
		return
	}
	rows = slices.Clone(rows[:min(len(rows), maxViewFeedRows)])
	slices.Reverse(rows)
	list := make(wamp.List, len(rows))
	for i, r := range rows {
		list[i] = r
	}
	opts := sharedFeedOptions(v.private)
	if err := h.Publish(wire.TransformedTopic(v.name), opts, wamp.List{list}, nil); err != nil {
		h.Log.Debug("fleetdb: view not published", "transform", v.name, "err", err)
	}
}

// sharedFeedOptions returns feedOptions(private), made once, for the
// publications that add nothing to them: nothing writes the
// options of a publication of the platform's own session (nexus and the
// router's publish filter only read them; the router's authorizer, which
// adds the publisher's identity, sees network sessions only).
func sharedFeedOptions(private bool) wamp.Dict {
	if private {
		return privateFeedOptions
	}
	return publicFeedOptions
}

// publicFeedOptions and privateFeedOptions are sharedFeedOptions'.
var publicFeedOptions, privateFeedOptions = feedOptions(false), feedOptions(true)

// feedOptions are the PUBLISH options of a feed: cross-app readers
// (role app_reader) never get private tables, transforms or error-logs.
func feedOptions(private bool) wamp.Dict {
	opts := wamp.Dict{wire.OptExcludeMe: false}
	if private {
		opts[wire.OptExcludeAuthRole] = wamp.List{wire.RoleAppReader}
	}
	return opts
}
