// This file holds Installation: the environment a device agent injects into
// an app container, the per-app WAMP-CRA credential with its epochs and
// rotation (WIRE.md §1.4), and the /data/env mirror.

package platformtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Installation is an app installed on a device in a stage.
type Installation struct {
	p      *Platform
	device *Device
	app    *App
	stage  Stage
	realm  string

	// guarded by p.mu
	epoch     int       // current credential epoch, from 1
	prevUntil time.Time // platform time until which epoch-1 is still valid
	removed   bool

	// management API state (model_appstates.go), guarded by p.mu
	release *release // nil: installed in Go while the app had no READY release
	target  AppState
	current AppState
	group   *group // the group it is inherited from; nil: installed directly
}

func realmName(swarm, app int, stage Stage) string { return wire.Realm(swarm, app, string(stage)) }

// Device returns the device of the installation.
func (in *Installation) Device() *Device { return in.device }

// App returns the installed app.
func (in *Installation) App() *App { return in.app }

// Stage returns the stage of the installation.
func (in *Installation) Stage() Stage { return in.stage }

// Realm returns the realm the app joins: realm-<swarm>-<app>-<stage>.
func (in *Installation) Realm() string { return in.realm }

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
	d := in.device
	return map[string]string{
		wire.EnvSerialNumber: d.serial,
		wire.EnvDeviceKey:    strconv.Itoa(d.key),
		wire.EnvDeviceName:   d.name,
		wire.EnvSwarmKey:     strconv.Itoa(d.project.key),
		wire.EnvAppKey:       strconv.Itoa(in.app.key),
		wire.EnvAppName:      in.app.name,
		wire.EnvStage:        string(in.stage),
		wire.EnvEndpointURL:  in.p.HTTPURL(),
	}
}

// Credentials returns the current per-app credential:
// authid app-<A>-<stage>-e<epoch>@<serial> and its secret.
func (in *Installation) Credentials() (authID, secret string) {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	return in.credentialLocked(in.epoch)
}

// Rotate moves the per-app credential to the next epoch and returns it.
// The previous epoch stays valid for 15 minutes of platform time; older
// epochs are refused (stale_epoch).
func (in *Installation) Rotate() (authID, secret string) {
	authID, secret, err := in.rotate()
	if err != nil {
		if in.p.tb != nil {
			in.p.tb.Helper()
		}
		in.p.fail(err)
	}
	return authID, secret
}

func (in *Installation) rotate() (authID, secret string, err error) {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	if in.removed {
		return "", "", fmt.Errorf("rotate: app %q is no longer installed on device %q", in.app.name, in.device.name)
	}
	in.epoch++
	in.prevUntil = in.p.clock.Now().Add(credentialGrace)
	in.p.log.Info("credential rotated", "realm", in.realm, "device", in.device.name, "epoch", in.epoch)
	authID, secret = in.credentialLocked(in.epoch)
	return authID, secret, nil
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

func (in *Installation) credentialLocked(epoch int) (authID, secret string) {
	d := in.device
	return wire.AppAuthID(in.app.key, string(in.stage), epoch, d.serial),
		appSecret(d.credKey, d.serial, in.app.key, in.stage, epoch)
}

// epochValidLocked reports whether a per-app credential of this epoch is
// accepted at platform time now.
func (in *Installation) epochValidLocked(epoch int, now time.Time) bool {
	switch epoch {
	case in.epoch:
		return true
	case in.epoch - 1:
		return epoch >= 1 && now.Before(in.prevUntil)
	default:
		return false
	}
}

// appSecret derives a per-app secret: base64(HMAC-SHA256(key =
// app_cred_key, message = ironflock/app-cred/v1|serial|A|STAGE|epoch)).
func appSecret(credKey, serial string, app int, stage Stage, epoch int) string {
	m := hmac.New(sha256.New, []byte(credKey))
	m.Write([]byte(wire.AppCredMessage(serial, app, string(stage), epoch)))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
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
