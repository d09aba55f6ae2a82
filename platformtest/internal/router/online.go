// This file holds which devices are online (a joined session): counted as
// sessions join and leave, and handed out as one map until the next
// change, so that a request of the management API or a console page,
// which asks each time, does not walk every session of the fleet.

package router

// onlineDevices counts the joined sessions per device
// (countSessionLocked). The router's mu guards it.
type onlineDevices struct {
	joined map[int]int  // device key → joined sessions
	snap   map[int]bool // what Online hands out; nil after a change
}

// add counts delta joined sessions of device key.
func (o *onlineDevices) add(key, delta int) {
	if o.joined == nil {
		o.joined = map[int]int{}
	}
	if o.joined[key] += delta; o.joined[key] <= 0 {
		delete(o.joined, key)
	}
	o.snap = nil
}

// Online returns the keys of the devices with a joined session. The map
// is shared by the callers until the next join or leave: it must not be
// changed.
func (rt *Router) Online() map[int]bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	o := &rt.online
	if o.snap == nil {
		o.snap = make(map[int]bool, len(o.joined))
		for key := range o.joined {
			o.snap[key] = true
		}
	}
	return o.snap
}
