// This file holds the bare nexus router the router benchmark compares
// flockd with: nexus/v3/router behind nexus's own WebSocket server, one
// realm, anonymous or WAMP-CRA authentication with the caller's
// credential, in a child process (flockbench -nexus-router) so that its
// CPU time and memory are its own.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/flockgo/ironflock/internal/cpuprofile"
	nexus "github.com/gammazero/nexus/v3/router"
	"github.com/gammazero/nexus/v3/router/auth"
	"github.com/gammazero/nexus/v3/wamp"
)

// nexusEnvVar carries the child's settings (JSON) to flockbench
// -nexus-router.
const nexusEnvVar = "FLOCKBENCH_NEXUS_ROUTER"

// nexusReadyPrefix starts the line the child prints once it serves,
// followed by its WebSocket URL.
const nexusReadyPrefix = "flockbench-nexus-ready "

// Keys of the child's settings.
const (
	nexusKeyAuth       = "auth" // "anonymous" or "wampcra"
	nexusKeyRealm      = "realm"
	nexusKeyAuthID     = "authid"
	nexusKeySecret     = "secret"
	nexusKeyCPUProfile = "cpuprofile" // a file, or ""
)

// nexusKeepalive is the WebSocket ping interval of the bare router: the
// platform's (flockd pings every 20 s too).
const nexusKeepalive = 20 * time.Second

// nexusRouterMain is flockbench -nexus-router: it serves until SIGINT,
// SIGTERM or the end of its standard input (the parent is gone).
func nexusRouterMain(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	cfg, err := childEnv(nexusEnvVar)
	if err != nil {
		return fmt.Errorf("nexus router: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	if path := cfg[nexusKeyCPUProfile]; path != "" {
		stop, err := cpuprofile.Start(path)
		if err != nil {
			return err
		}
		defer stop()
	}
	realm := &nexus.RealmConfig{URI: wamp.URI(cfg[nexusKeyRealm])}
	switch cfg[nexusKeyAuth] {
	case "anonymous":
		realm.AnonymousAuth = true
	case "wampcra":
		ks := keyStore{authID: cfg[nexusKeyAuthID], secret: cfg[nexusKeySecret]}
		realm.Authenticators = []auth.Authenticator{auth.NewCRAuthenticator(ks, 10*time.Second)}
	default:
		return fmt.Errorf("nexus router: unknown auth %q", cfg[nexusKeyAuth])
	}
	quiet := log.New(io.Discard, "", 0)
	r, err := nexus.NewRouter(&nexus.Config{RealmConfigs: []*nexus.RealmConfig{realm}}, quiet)
	if err != nil {
		return err
	}
	defer r.Close()
	ws := nexus.NewWebsocketServer(r)
	ws.KeepAlive = nexusKeepalive
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: ws, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "%sws://%s/ws-ua-usr\n", nexusReadyPrefix, ln.Addr())
	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	_ = srv.Close()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// keyStore knows one WAMP-CRA credential, with the platform's role.
type keyStore struct{ authID, secret string }

// AuthKey returns the secret of the known authid.
func (k keyStore) AuthKey(authid, authmethod string) ([]byte, error) {
	if authid != k.authID || authmethod != "wampcra" {
		return nil, errors.New("unknown authid")
	}
	return []byte(k.secret), nil
}

// PasswordInfo returns no salt: the secret is the key.
func (keyStore) PasswordInfo(string) (string, int, int) { return "", 0, 0 }

// AuthRole returns the role of a device's session.
func (keyStore) AuthRole(string) (string, error) { return "app", nil }

// Provider names the key store.
func (keyStore) Provider() string { return "flockbench" }

// nexusChild is a running bare nexus router.
type nexusChild struct {
	*childProc
	url string
}

// startNexus starts flockbench -nexus-router with auth ("anonymous" or
// "wampcra") for the realm and credential of env, profiling into
// cpuProfile when it is not "".
func startNexus(ctx context.Context, auth, realm, authID, secret, cpuProfile string) (*nexusChild, error) {
	p, err := startSelf("-nexus-router", nexusEnvVar, map[string]string{
		nexusKeyAuth: auth, nexusKeyRealm: realm, nexusKeyAuthID: authID, nexusKeySecret: secret,
		nexusKeyCPUProfile: cpuProfile})
	if err != nil {
		return nil, err
	}
	url, err := p.expect(ctx, nexusReadyPrefix)
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("nexus router: %w", err)
	}
	return &nexusChild{childProc: p, url: url}, nil
}

// pid returns the child's process ID.
func (c *nexusChild) pid() int { return c.cmd.Process.Pid }
