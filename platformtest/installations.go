// This file holds installations in Go: Install, Uninstall, InstallationOf
// and the Installation handle with the environment a device agent injects
// into an app container, the per-app WAMP-CRA credential with its
// rotation (docs/wire.md §6), the /data/env mirror, and the state of the app
// on the device as the management API shows it.

package platformtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Installation is an app installed on a device in a stage.
type Installation struct {
	p *Platform
	m *registry.Installation
}

func (p *Platform) installation(m *registry.Installation) *Installation {
	return handle(p, m, func() *Installation { return &Installation{p: p, m: m} })
}

// Install installs app a on device d in stage (Dev or Prod) and returns
// the installation, whose Env is what a device agent injects. The realm
// realm-<swarm>-<app>-<stage> is created when it does not exist yet.
func (p *Platform) Install(d *Device, a *App, stage Stage) *Installation {
	if p.tb != nil {
		p.tb.Helper()
	}
	in, err := p.install(d, a, stage)
	if err != nil {
		p.fail(err)
	}
	return in
}

func (p *Platform) install(d *Device, a *App, stage Stage) (*Installation, error) {
	if d == nil || a == nil {
		return nil, errors.New("install: device and app are required")
	}
	var m *registry.Installation
	err := p.reg.Update(func(s *registry.State) (err error) {
		m, err = s.Install(d.m, a.m, string(stage))
		return err
	})
	if err != nil {
		return nil, err
	}
	p.reconcile()
	if err := p.openDataBackend(m.Realm, m.App.Name); err != nil {
		return nil, err
	}
	return p.installation(m), nil
}

// Uninstall removes an installation: its credentials stop working for new
// sessions. Sessions already joined stay, and the realm stays.
func (p *Platform) Uninstall(in *Installation) {
	if p.tb != nil {
		p.tb.Helper()
	}
	p.provision(func(s *registry.State) error {
		if in == nil || in.p != p {
			return errors.New("uninstall: installation is not on this platform")
		}
		if !s.Installed(in.m) {
			return fmt.Errorf("uninstall: app %q is not installed on device %q in %s", in.m.App.Name, in.m.Device.Name, in.m.Stage)
		}
		s.RemoveInstall(in.m)
		return nil
	})
}

// InstallationOf returns the installation of app appKey on device
// deviceKey in stage, nil when there is none. It gives a test the
// environment (Env) of an app installed over the management API, which
// the API itself never shows: it holds the app's credential.
func (p *Platform) InstallationOf(deviceKey, appKey int, stage Stage) *Installation {
	var m *registry.Installation
	p.reg.View(func(s *registry.State) { m = s.Installation(deviceKey, appKey, string(stage)) })
	return p.installation(m)
}

// Device returns the device of the installation.
func (in *Installation) Device() *Device { return in.p.device(in.m.Device) }

// App returns the installed app.
func (in *Installation) App() *App { return in.p.app(in.m.App) }

// Stage returns the stage of the installation.
func (in *Installation) Stage() Stage { return Stage(in.m.Stage) }

// Realm returns the realm the app joins: realm-<swarm>-<app>-<stage>.
func (in *Installation) Realm() string { return in.m.Realm }

// Env returns the environment a device agent injects into the app's
// container, as a fresh map: DEVICE_SERIAL_NUMBER, DEVICE_KEY,
// DEVICE_NAME, SWARM_KEY, APP_KEY, APP_NAME, ENV, DEVICE_ENDPOINT_URL (the
// platform's HTTP URL) and the current per-app credential APP_AUTH_ID and
// APP_AUTH_SECRET. All values are strings.
func (in *Installation) Env() map[string]string {
	env := in.LegacyEnv()
	id, secret := in.Credentials()
	env[wire.EnvAppAuthID] = id
	env[wire.EnvAppAuthSecret] = secret
	return env
}

// LegacyEnv returns Env without APP_AUTH_ID and APP_AUTH_SECRET, the
// environment of an agent that predates per-app credentials: clients then
// use the legacy credential (serial, serial).
func (in *Installation) LegacyEnv() map[string]string {
	d := in.m.Device
	return map[string]string{
		wire.EnvSerialNumber: d.Serial,
		wire.EnvDeviceKey:    strconv.Itoa(d.Key),
		wire.EnvDeviceName:   d.Name,
		wire.EnvSwarmKey:     strconv.Itoa(d.Project.Key),
		wire.EnvAppKey:       strconv.Itoa(in.m.App.Key),
		wire.EnvAppName:      in.m.App.Name,
		wire.EnvStage:        in.m.Stage,
		wire.EnvEndpointURL:  in.p.HTTPURL(),
	}
}

// Credentials returns the current per-app credential:
// authid app-<A>-<stage>-e<epoch>@<serial> and its secret.
func (in *Installation) Credentials() (authID, secret string) {
	in.p.reg.View(func(*registry.State) { authID, secret = in.m.Credential(in.m.Epoch) })
	return authID, secret
}

// Rotate moves the per-app credential to the next epoch and returns it.
// The previous epoch stays valid for 15 minutes of platform time; older
// epochs are refused (stale_epoch).
func (in *Installation) Rotate() (authID, secret string) {
	if in.p.tb != nil {
		in.p.tb.Helper()
	}
	in.p.provision(func(s *registry.State) (err error) {
		authID, secret, err = s.Rotate(in.m)
		return err
	})
	return authID, secret
}

// WriteEnvDir writes every Env entry to dir/<NAME>.txt without a trailing
// newline, as the agent's /data/env mirror does. Files are replaced
// atomically, so a client reading them never sees half a secret.
func (in *Installation) WriteEnvDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, v := range in.Env() {
		if err := writeFileAtomic(filepath.Join(dir, name+".txt"), []byte(v), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp, perm)); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// AppState is the state of an app on a device.
type AppState string

// The states of an app on a device. A user may ask for AppRunning,
// AppStopped or AppPresent (downloaded, not started); the others are
// reported by the device agent on the way.
const (
	AppRunning     AppState = wire.AppStateRunning
	AppStopped     AppState = wire.AppStateStopped
	AppPresent     AppState = wire.AppStatePresent
	AppDownloading AppState = wire.AppStateDownloading
	AppStarting    AppState = wire.AppStateStarting
	AppStopping    AppState = wire.AppStateStopping
	AppFailed      AppState = wire.AppStateFailed
	AppRemoved     AppState = wire.AppStateRemoved
)

// allAppStates are every state an agent may report.
var allAppStates = []AppState{AppRunning, AppStopped, AppPresent, AppDownloading, AppStarting, AppStopping, AppFailed, AppRemoved}

// TargetState returns the state the user asked for (AppRunning unless
// changed over the management API).
func (in *Installation) TargetState() AppState {
	var st string
	in.p.reg.View(func(*registry.State) { st = in.m.Target })
	return AppState(st)
}

// CurrentState returns the state the device agent reports.
func (in *Installation) CurrentState() AppState {
	var st string
	in.p.reg.View(func(*registry.State) {
		st = in.m.Current
		if in.m.Removed {
			st = wire.AppStateRemoved
		}
	})
	return AppState(st)
}

// SetCurrentState makes the device agent report state s, as a real agent
// does while it downloads, starts or stops an app, or when the app fails.
// A device with an app DOWNLOADING, STARTING or STOPPING and no joined
// session is CONFIGURING. The next target state set over the management
// API replaces it.
func (in *Installation) SetCurrentState(s AppState) {
	if in.p.tb != nil {
		in.p.tb.Helper()
	}
	in.p.provision(func(st *registry.State) error {
		if !slices.Contains(allAppStates, s) {
			return fmt.Errorf("set current state: unknown app state %q", s)
		}
		st.SetCurrent(in.m, string(s))
		return nil
	})
}

// ReleaseKey returns the key of the installed release, 0 when the app had
// no READY release when it was installed in Go.
func (in *Installation) ReleaseKey() int {
	k := 0
	in.p.reg.View(func(*registry.State) {
		if in.m.Release != nil {
			k = in.m.Release.Key
		}
	})
	return k
}

// Inherited reports whether the installation comes from a group the
// device is a member of.
func (in *Installation) Inherited() bool {
	var g bool
	in.p.reg.View(func(*registry.State) { g = in.m.Group != nil })
	return g
}
