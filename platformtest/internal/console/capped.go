// This file holds the capped lists of devices: where a page names the
// devices of a group, of a realm or of a tool, it names at most listCap
// of them, the first by key, says how many there are and links to the
// paged, searchable list of them all (the fleet page's ?group=, an app's
// page's ?realm=), so that a group or an app on 100,000 devices costs a
// page what one on ten does.

package console

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// listCap is how many devices a capped list names at most.
const listCap = 10

// deviceRef names a device.
type deviceRef struct {
	Key  int
	Name string
}

// someDevices is a capped list: the first devices by key, how many there
// are in all and the page that lists them all.
type someDevices struct {
	Devices []deviceRef
	Total   int
	All     string // the paged, searchable list of them all
}

// Capped tells whether the list leaves devices out.
func (s someDevices) Capped() bool { return s.Total > len(s.Devices) }

// groupDevicesLink is the fleet page listing the devices of group key.
func groupDevicesLink(key int) string { return "/fleet?group=" + strconv.Itoa(key) }

// realmDevicesLink is the page of app appKey listing its installations
// in realm.
func realmDevicesLink(appKey int, realm string) string {
	return "/apps/" + strconv.Itoa(appKey) + "?" + url.Values{"realm": {realm}}.Encode()
}

// groupDevices returns the capped list of g's members.
func groupDevices(g *registry.Group) someDevices {
	out := someDevices{Total: len(g.Devices), All: groupDevicesLink(g.Key)}
	for _, d := range firstByKey(g.Devices, listCap) {
		out.Devices = append(out.Devices, deviceRef{Key: d.Key, Name: d.Name})
	}
	return out
}

// realmDevicesOf returns the capped list of the devices realm's app is
// installed on (registry.State.RealmInstalls: what it costs grows with
// the realm, not with the fleet).
func realmDevicesOf(s *registry.State, realm string, appKey int) someDevices {
	first, total := s.RealmInstalls(realm, listCap)
	out := someDevices{Total: total, All: realmDevicesLink(appKey, realm)}
	for _, in := range first {
		out.Devices = append(out.Devices, deviceRef{Key: in.Device.Key, Name: in.Device.Name})
	}
	return out
}

// firstByKey returns the first n of devices by key, without sorting them
// all.
func firstByKey(devices []*registry.Device, n int) []*registry.Device {
	byKey := func(a, b *registry.Device) int { return cmp.Compare(a.Key, b.Key) }
	var out []*registry.Device
	for _, d := range devices {
		if len(out) == n {
			if n == 0 || d.Key >= out[n-1].Key {
				continue
			}
			out = out[:n-1]
		}
		i, _ := slices.BinarySearchFunc(out, d, byKey)
		out = slices.Insert(out, i, d)
	}
	return out
}
