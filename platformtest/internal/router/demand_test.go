package router

import (
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
)

// TestDemandFollowsLinks: a link's feed subscriptions count in its realm's
// Demand from before SUBSCRIBED until the link has ended; other topics
// cost the link nothing; a tool's local session makes every feed wanted.
func TestDemandFollowsLinks(t *testing.T) {
	tr := newTestRouter(t, Config{})
	d := tr.rt.Host(tr.realm.Name).Demand
	a := tr.join(t, 0, false, subscriberRoles(false), 0)
	a.subscribe("com.example.readings", "")
	if m := tr.link(t, a.id).demand; m != nil {
		t.Errorf("an app topic's subscription holds demand %v", m)
	}
	if d.Wanted("transformed.readings") {
		t.Fatal("a feed is wanted before anyone subscribed")
	}
	a.subscribe("transformed.readings", "")
	a.subscribe("transformed.readings", "") // the same again: counted once
	b := tr.join(t, 1, true, subscriberRoles(false), 0)
	b.subscribe("transformed.", wire.MatchPrefix)
	if !d.Wanted("transformed.readings") || !d.Wanted("transformed.other") {
		t.Fatal("subscribed feeds are not wanted")
	}

	_ = b.conn.Close()
	if err := tr.rt.WaitGone(testCtx(t), uint64(b.id)); err != nil {
		t.Fatal(err)
	}
	if !d.Wanted("transformed.readings") || d.Wanted("transformed.other") {
		t.Error("after the prefix subscriber left: want transformed.readings only")
	}
	_ = a.conn.Close()
	if err := tr.rt.WaitGone(testCtx(t), uint64(a.id)); err != nil {
		t.Fatal(err)
	}
	if d.Wanted("transformed.readings") {
		t.Error("a feed is wanted after its only subscriber left")
	}

	local, err := tr.rt.LocalSession(tr.realm.Name, "watcher")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if !d.Wanted("transformed.readings") {
		t.Error("a local session's realm does not want its feeds")
	}
}
