package realm

import "testing"

// TestDemand: a feed topic is wanted while a pattern that matches it is
// held, as often as it was added; other topics always are.
func TestDemand(t *testing.T) {
	var d Demand
	wanted := func(want bool, topics ...string) {
		t.Helper()
		for _, topic := range topics {
			if got := d.Wanted(topic); got != want {
				t.Errorf("Wanted(%q) = %v, want %v", topic, got, want)
			}
		}
	}
	wanted(false, "transformed.a", "transformed.bulk.a")
	wanted(true, "com.example.a", "files.events") // not a feed: always

	exact := NewPattern("transformed.a", "exact")
	d.Add(exact)
	d.Add(exact)
	wanted(true, "transformed.a")
	wanted(false, "transformed.b", "transformed.bulk.a")
	d.Remove(exact)
	wanted(true, "transformed.a")
	d.Remove(exact)
	d.Remove(exact) // one more than added: nothing to take away
	wanted(false, "transformed.a")

	prefix := NewPattern("transformed.bulk.", "prefix")
	d.Add(prefix)
	wanted(true, "transformed.bulk.a", "transformed.bulk.b")
	wanted(false, "transformed.a")
	wild := NewPattern("transformed..b", "wildcard")
	d.Add(wild)
	wanted(true, "transformed.x.b", "transformed.bulk.b")
	wanted(false, "transformed.b", "transformed.x.c")
	d.Remove(prefix)
	d.Remove(wild)
	wanted(false, "transformed.bulk.a", "transformed.x.b")

	for _, p := range []Pattern{
		NewPattern("com.example.a", ""),
		NewPattern("com.", "prefix"),
		NewPattern("bulk..a", "wildcard"),
	} {
		if p.Feed() {
			t.Errorf("%+v counts as a feed pattern", p)
		}
		d.Add(p)
	}
	wanted(false, "transformed.a")
	for _, p := range []Pattern{
		NewPattern("transformed.a", "other"), // nexus takes it as exact
		NewPattern("trans", "prefix"),
		NewPattern(".a", "wildcard"),
	} {
		if !p.Feed() {
			t.Errorf("%+v does not count as a feed pattern", p)
		}
	}

	d.Pin()
	wanted(true, "transformed.a", "transformed.anything.else")

	var none *Demand
	if !none.Wanted("transformed.a") {
		t.Error("a nil Demand does not want a feed")
	}
	none.Add(exact) // no effect, no panic
}
