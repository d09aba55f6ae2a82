// This file holds the platform's authentication decision (docs/wire.md §6):
// which credential a realm admits, with which role, or why not. The router
// asks before it challenges a client; the signature check is the router's.

package registry

import (
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Denial reasons of the authentication log (docs/wire.md §6).
const (
	DenyMissingArgs            = "missing_args"
	DenyBadRealm               = "bad_realm"
	DenyUnknownDevice          = "unknown_device"
	DenyStaleEpoch             = "stale_epoch"
	DenyNotInstalled           = "not_installed"
	DenyNotInstalledRealmStage = "not_installed_realm_stage"
	DenyUnknownProvider        = "unknown_provider"
	DenyNoGrant                = "no_grant"
	DenyLegacyForeign          = "legacy_foreign"
	DenyLegacyDenied           = "legacy_denied"
)

// Verdict is what a realm makes of an authid before the challenge.
type Verdict struct {
	Reason string // "" = admissible with Secret
	Secret string
	Role   string
	Device *Device
	App    *App // app of the credential (legacy: the realm's app)
	Stage  string
}

// Judge decides what realm ri makes of authid.
func (s *State) Judge(ri realm.Info, authid string) Verdict {
	if authid == "" {
		return Verdict{Reason: DenyMissingArgs}
	}
	if _, ok := s.realms[ri.Name]; !ok {
		return Verdict{Reason: DenyBadRealm}
	}
	if app, stage, epoch, serial, ok := wire.ParseAppAuthID(authid); ok {
		return s.judgeApp(ri, app, strings.ToUpper(stage), epoch, serial)
	}
	return s.judgeLegacy(ri, authid)
}

// judgeApp judges a per-app credential: role app on the app's own realm;
// role app_reader on the realm of a provider the app holds a grant for.
func (s *State) judgeApp(ri realm.Info, app int, stage string, epoch int, serial string) Verdict {
	d := s.DeviceBySerial(serial)
	if d == nil {
		return Verdict{Reason: DenyUnknownDevice}
	}
	v := Verdict{Device: d, Stage: stage, Role: wire.RoleApp}
	in := s.installs[instKey{d.Key, app, stage}]
	if in == nil {
		other := wire.StageProd
		if stage == wire.StageProd {
			other = wire.StageDev
		}
		if s.installs[instKey{d.Key, app, other}] != nil {
			v.Reason = DenyNotInstalledRealmStage
		} else {
			v.Reason = DenyNotInstalled
		}
		return v
	}
	v.App = in.App
	if !in.EpochValid(epoch, s.Now()) {
		v.Reason = DenyStaleEpoch
		return v
	}
	_, v.Secret = in.Credential(epoch)
	if ri.Name == in.Realm {
		return v
	}
	switch provider := s.apps[ri.App]; {
	case ri.Swarm != d.Project.Key, ri.App == app:
		// another project, or the app's own realm of the other stage
		v.Reason = DenyBadRealm
	case provider == nil:
		v.Reason = DenyUnknownProvider
	case !s.Granted(ri.Swarm, app, provider.Name):
		v.Reason = DenyNoGrant
	default:
		v.Role = wire.RoleAppReader
	}
	return v
}

// judgeLegacy judges the legacy credential (serial, serial): role app on
// the realm of an app installed on that device in that stage; refused on
// every realm in strict mode.
func (s *State) judgeLegacy(ri realm.Info, serial string) Verdict {
	d := s.DeviceBySerial(serial)
	if d == nil {
		return Verdict{Reason: DenyUnknownDevice}
	}
	if s.strict {
		return Verdict{Device: d, Reason: DenyLegacyDenied}
	}
	v := Verdict{Device: d, Stage: ri.Stage, Role: wire.RoleApp, Secret: serial}
	in := s.installs[instKey{d.Key, ri.App, ri.Stage}]
	if ri.Swarm != d.Project.Key || in == nil {
		v.Reason = DenyLegacyForeign
		return v
	}
	v.App = in.App
	return v
}
