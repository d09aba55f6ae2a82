// This file holds the helpers of the tests that run a Session against the
// fake platform: one app on two devices, and the Config of an installation.

package engine

import (
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// platformPair starts a fake platform with one app installed on devices a
// and b.
func platformPair(t *testing.T) (p *platformtest.Platform, a, b *platformtest.Installation) {
	t.Helper()
	p = platformtest.New(t)
	app := p.AddApp("pair", "")
	return p, p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
}

// installationConfig is the Config of in's credential for the router at
// url (the platform's, or a proxy's in front of it).
func installationConfig(in *platformtest.Installation, url string) Config {
	id, secret := in.Credentials()
	return Config{URL: url, Realm: in.Realm(), AuthID: id, Auth: []AuthMethod{{Name: AuthWAMPCRA, Secret: secret}},
		HandshakeTimeout: 5 * time.Second, ResponseTimeout: 10 * time.Second, KeepaliveIdle: time.Minute, PongTimeout: time.Minute}
}
