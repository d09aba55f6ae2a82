// This file holds Demand: which feed topics (transformed.*) of a realm
// someone could receive, so that a service can leave out a publication
// nobody would get. The data backend's feed of every appended row,
// transformed.<table>, is half of what the platform's session sends in a
// burst of appends, and most tables have no subscriber.

package realm

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gammazero/nexus/v3/wamp"
)

// FeedPrefix starts every topic a Demand knows about; it wants any other.
const FeedPrefix = "transformed."

// Demand counts the subscriptions of a realm that could receive a feed
// topic: exact topics and patterns, each counted once per holder. The router
// adds a network session's SUBSCRIBE before nexus sees it, so a
// subscriber holding SUBSCRIBED is counted, and takes the session's
// entries away only when its link has ended: an UNSUBSCRIBE leaves its
// entry until then, which costs publications to nobody, never an event.
// The zero Demand is ready; a nil *Demand wants every topic.
type Demand struct {
	held atomic.Int64 // entries held, all holders

	mu       sync.RWMutex
	all      bool // Pin: a session the router does not see subscribes
	exact    map[string]int
	patterns map[Pattern]int
}

// Pattern is one subscription: a topic and its match policy ("",
// "exact", "prefix" or "wildcard"; nexus takes any other as exact).
type Pattern struct{ Topic, Match string }

// Feed reports whether p could match a topic that starts with FeedPrefix:
// only such patterns are worth counting.
func (p Pattern) Feed() bool {
	switch p.Match {
	case wamp.MatchPrefix:
		return strings.HasPrefix(p.Topic, FeedPrefix) || strings.HasPrefix(FeedPrefix, p.Topic)
	case wamp.MatchWildcard:
		first, _, _ := strings.Cut(p.Topic, ".")
		return first == "" || first == strings.TrimSuffix(FeedPrefix, ".")
	}
	return strings.HasPrefix(p.Topic, FeedPrefix)
}

// NewPattern returns the Pattern of a SUBSCRIBE.
func NewPattern(topic, match string) Pattern {
	if match != wamp.MatchPrefix && match != wamp.MatchWildcard {
		match = ""
	}
	return Pattern{Topic: topic, Match: match}
}

// Add counts one holder of p; a p that is not Feed is left out.
func (d *Demand) Add(p Pattern) {
	if d == nil || !p.Feed() {
		return
	}
	d.mu.Lock()
	if p.Match == "" {
		if d.exact == nil {
			d.exact = map[string]int{}
		}
		d.exact[p.Topic]++
	} else {
		if d.patterns == nil {
			d.patterns = map[Pattern]int{}
		}
		d.patterns[p]++
	}
	d.held.Add(1)
	d.mu.Unlock()
}

// Remove takes away one holder of p that Add counted.
func (d *Demand) Remove(p Pattern) {
	if d == nil || !p.Feed() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.Match == "" {
		if d.exact[p.Topic] == 0 {
			return
		}
		if d.exact[p.Topic]--; d.exact[p.Topic] == 0 {
			delete(d.exact, p.Topic)
		}
	} else {
		if d.patterns[p] == 0 {
			return
		}
		if d.patterns[p]--; d.patterns[p] == 0 {
			delete(d.patterns, p)
		}
	}
	d.held.Add(-1)
}

// Pin makes every topic wanted from now on: a session whose subscriptions
// the Demand cannot see (a tool's local session) may receive any of them.
func (d *Demand) Pin() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.all = true
	d.held.Add(1)
	d.mu.Unlock()
}

// Wanted reports whether a subscription counted now could receive a
// publication to topic; a topic outside FeedPrefix is always wanted. With
// nothing held it takes no lock.
func (d *Demand) Wanted(topic string) bool {
	if d == nil || !strings.HasPrefix(topic, FeedPrefix) {
		return true
	}
	if d.held.Load() == 0 {
		return false
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.all || d.exact[topic] > 0 {
		return true
	}
	u := wamp.URI(topic)
	for p := range d.patterns {
		if p.Match == wamp.MatchPrefix && u.PrefixMatch(wamp.URI(p.Topic)) ||
			p.Match == wamp.MatchWildcard && u.WildcardMatch(wamp.URI(p.Topic)) {
			return true
		}
	}
	return false
}
