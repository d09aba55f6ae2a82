package worldtest

import (
	"context"
	"io"
	"log"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
)

// Timeout bounds every wait of a test; reaching it is a failure.
const Timeout = 20 * time.Second

var quietLog = log.New(io.Discard, "", 0)

// Ctx returns a context that ends at Timeout or with the test.
func Ctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	t.Cleanup(cancel)
	return ctx
}

// DialConfig returns a nexus client configuration authenticating with
// WAMP-CRA as authid with secret.
func DialConfig(realm, authid, secret string, ser serialize.Serialization) client.Config {
	return client.Config{
		Realm:        realm,
		HelloDetails: wamp.Dict{"authid": authid},
		AuthHandlers: map[string]client.AuthFunc{
			"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
				return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
			},
		},
		Serialization: ser,
		Logger:        quietLog,
	}
}

// Dial connects a raw nexus client; the client is closed at the end of the
// test.
func Dial(t *testing.T, url string, cfg client.Config) (*client.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	c, err := client.ConnectNet(ctx, url, cfg)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// Connect joins the realm of an installation with its per-app credential.
func Connect(t *testing.T, p Router, in Member, ser serialize.Serialization) *client.Client {
	t.Helper()
	id, secret := in.Credentials()
	c, err := Dial(t, p.URL(), DialConfig(in.Realm(), id, secret, ser))
	if err != nil {
		t.Fatalf("join %s as %s: %v", in.Realm(), id, err)
	}
	return c
}

// SetLocation updates the location of in's device over the wire.
func SetLocation(t *testing.T, p Router, in Member, long, lat float64) {
	t.Helper()
	c := Connect(t, p, in, client.JSON)
	if _, err := c.Call(Ctx(t), wire.LocationProc, nil, wamp.List{map[string]any{"long": long, "lat": lat}}, nil, nil); err != nil {
		t.Fatalf("location update: %v", err)
	}
	_ = c.Close()
}
