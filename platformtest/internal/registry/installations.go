// This file holds installations: an app installed on a device in a stage,
// the realm it creates, the per-app WAMP-CRA credential with its epochs
// and rotation (docs/wire.md §6), and the state of the app on the device as
// the management API shows it (the installed release, the target state
// the user asked for and the current state the device agent reports, and
// whether it is inherited from a group). The fake's device agent is
// instantaneous: a new target state is the current state at once.

package registry

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// CredentialGrace is how long the previous epoch of a rotated per-app
// credential stays valid, in platform time (docs/wire.md §6).
const CredentialGrace = 15 * time.Minute

type instKey struct {
	device, app int
	stage       string
}

// Installation is an app installed on a device in a stage.
type Installation struct {
	Device *Device `json:"-"` // kept by keys, as are the app, release and group
	App    *App    `json:"-"`
	Stage  string  `json:"stage"`
	Realm  string  `json:"realm"`

	Epoch     int       `json:"epoch"`               // current credential epoch, from 1
	PrevUntil time.Time `json:"prev_until,omitzero"` // platform time until which Epoch-1 is still valid
	Removed   bool      `json:"-"`

	Release *Release `json:"-"` // nil: installed in Go while the app had no READY release
	Target  string   `json:"target"`
	Current string   `json:"current"`
	Group   *Group   `json:"-"` // the group it is inherited from; nil: installed directly
	Seeded  bool     `json:"seeded,omitempty"`
}

// Install installs app a on device d in stage and creates the realm
// realm-<swarm>-<app>-<stage> when it does not exist yet. The app gets its
// newest READY release and the state RUNNING.
func (s *State) Install(d *Device, a *App, stage string) (*Installation, error) {
	if d == nil || a == nil {
		return nil, fmt.Errorf("install: device and app are required")
	}
	if !s.HasDevice(d) {
		return nil, fmt.Errorf("install: device %q is not on this platform", d.Name)
	}
	if !s.HasApp(a) {
		return nil, fmt.Errorf("install: app %q is not on this platform", a.Name)
	}
	st, err := ParseStage(stage)
	if err != nil {
		return nil, fmt.Errorf("install %q on %q: %w", a.Name, d.Name, err)
	}
	k := instKey{d.Key, a.Key, st}
	if s.installs[k] != nil {
		return nil, fmt.Errorf("app %q is already installed on device %q in %s", a.Name, d.Name, st)
	}
	ri := realm.NewInfo(d.Project.Key, a.Key, st)
	in := &Installation{Device: d, App: a, Stage: st, Realm: ri.Name, Epoch: 1,
		Release: s.NewestReady(a), Target: wire.AppStateRunning, Current: wire.AppStateRunning}
	s.putInstall(k, in)
	s.touchInstall(in)
	if _, ok := s.realms[ri.Name]; !ok {
		s.realms[ri.Name] = ri
		s.touchRealm(ri)
	}
	s.EntityInfo("installed", "app", a.Name, "device", d.Name, "stage", st, "realm", ri.Name)
	return in, nil
}

// RemoveInstall uninstalls: the credentials stop working for new
// sessions; joined sessions and the realm stay.
func (s *State) RemoveInstall(in *Installation) {
	k := instKey{in.Device.Key, in.App.Key, in.Stage}
	if s.installs[k] == in {
		s.dropInstall(k)
		s.touchInstall(in)
	}
	in.Removed = true
	s.EntityInfo("uninstalled", "app", in.App.Name, "device", in.Device.Name, "stage", in.Stage)
}

// Installed reports whether in is a current installation.
func (s *State) Installed(in *Installation) bool {
	return in != nil && s.installs[instKey{in.Device.Key, in.App.Key, in.Stage}] == in
}

// Installation returns the installation of app appKey on device
// deviceKey in stage, or nil.
func (s *State) Installation(deviceKey, appKey int, stage string) *Installation {
	return s.installs[instKey{deviceKey, appKey, stage}]
}

// Installations returns the number of installations.
func (s *State) Installations() int { return len(s.installs) }

// InstallsPerApp counts the installations of each app, by app key,
// without ordering them (a console page at 100,000 devices).
func (s *State) InstallsPerApp() map[int]int {
	out := map[int]int{}
	for _, in := range s.installs {
		out[in.App.Key]++
	}
	return out
}

// Installs returns every installation, ordered by device key, app key
// and stage.
func (s *State) Installs() []*Installation {
	out := make([]*Installation, 0, len(s.installs))
	for _, in := range s.installs {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *Installation) int {
		return cmp.Or(cmp.Compare(a.Device.Key, b.Device.Key), cmp.Compare(a.App.Key, b.App.Key), cmp.Compare(a.Stage, b.Stage))
	})
	return out
}

// DeviceInstalls returns the installations on d, ordered by app key and
// stage.
func (s *State) DeviceInstalls(d *Device) []*Installation {
	var out []*Installation
	for _, in := range s.byDevice[d.Key] {
		if in.Device == d {
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b *Installation) int {
		if c := cmp.Compare(a.App.Key, b.App.Key); c != 0 {
			return c
		}
		return cmp.Compare(a.Stage, b.Stage)
	})
	return out
}

// InstallsOf returns the installations of app appKey on d, in either
// stage, ordered by stage.
func (s *State) InstallsOf(d *Device, appKey int) []*Installation {
	var out []*Installation
	for _, st := range Stages {
		if in := s.installs[instKey{d.Key, appKey, st}]; in != nil {
			out = append(out, in)
		}
	}
	return out
}

// RealmInstalls returns the first limit installations of realm name by
// device key (every one when limit < 0) and how many there are, at a cost
// that grows with the realm's installations, not with the fleet.
func (s *State) RealmInstalls(name string, limit int) (first []*Installation, total int) {
	set := s.byRealm[name]
	byKey := func(a, b *Installation) int { return cmp.Compare(a.Device.Key, b.Device.Key) }
	if limit < 0 || limit >= len(set) {
		return slices.SortedFunc(maps.Keys(set), byKey), len(set)
	}
	for in := range set {
		if limit >= 0 && len(first) == limit {
			if limit == 0 || byKey(in, first[limit-1]) >= 0 {
				continue
			}
			first = first[:limit-1]
		}
		i, _ := slices.BinarySearchFunc(first, in, byKey)
		first = slices.Insert(first, i, in)
	}
	return first, len(set)
}

// Realm returns a provisioned realm.
func (s *State) Realm(name string) (realm.Info, bool) {
	ri, ok := s.realms[name]
	return ri, ok
}

// Realms returns the provisioned realms, ordered by name.
func (s *State) Realms() []realm.Info {
	out := make([]realm.Info, 0, len(s.realms))
	for _, ri := range s.realms {
		out = append(out, ri)
	}
	slices.SortFunc(out, func(a, b realm.Info) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// SetTarget sets the target state of in (the current state follows at
// once) and, when rel is not nil, its release.
func (s *State) SetTarget(in *Installation, target string, rel *Release) {
	in.Target, in.Current = target, target
	if rel != nil {
		in.Release = rel
	}
	s.touchInstall(in)
}

// SetCurrent sets the state the device agent reports for in.
func (s *State) SetCurrent(in *Installation, state string) {
	in.Current = state
	s.touchInstall(in)
}

// Credential returns the per-app credential of an epoch: authid
// app-<A>-<stage>-e<epoch>@<serial> and its secret.
func (in *Installation) Credential(epoch int) (authID, secret string) {
	d := in.Device
	return wire.AppAuthID(in.App.Key, in.Stage, epoch, d.Serial),
		AppSecret(d.CredKey, d.Serial, in.App.Key, in.Stage, epoch)
}

// EpochValid reports whether a per-app credential of this epoch is
// accepted at platform time now.
func (in *Installation) EpochValid(epoch int, now time.Time) bool {
	switch epoch {
	case in.Epoch:
		return true
	case in.Epoch - 1:
		return epoch >= 1 && now.Before(in.PrevUntil)
	default:
		return false
	}
}

// Rotate moves the per-app credential to the next epoch and returns it.
// The previous epoch stays valid for CredentialGrace of platform time.
func (s *State) Rotate(in *Installation) (authID, secret string, err error) {
	if in.Removed {
		return "", "", fmt.Errorf("rotate: app %q is no longer installed on device %q", in.App.Name, in.Device.Name)
	}
	in.Epoch++
	in.PrevUntil = s.Now().Add(CredentialGrace)
	s.touchInstall(in)
	s.log.Info("credential rotated", "realm", in.Realm, "device", in.Device.Name, "epoch", in.Epoch)
	authID, secret = in.Credential(in.Epoch)
	return authID, secret, nil
}

// AppSecret derives a per-app secret: base64(HMAC-SHA256(key =
// app_cred_key, message = ironflock/app-cred/v1|serial|A|STAGE|epoch)).
func AppSecret(credKey, serial string, app int, stage string, epoch int) string {
	m := hmac.New(sha256.New, []byte(credKey))
	m.Write([]byte(wire.AppCredMessage(serial, app, stage, epoch)))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
