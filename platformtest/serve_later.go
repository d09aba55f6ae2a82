// This file holds a platform that listens only when told to
// (WithServeLater, Serve), as flockd starts: its port opens once every
// realm's data backend is open, so that a start that fails never opens
// it and a script that waits for the port never takes a failing start for
// a good one. It serves no URI.

package platformtest

import (
	"context"
	"fmt"
	"net"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// WithServeLater makes Start prepare the platform without listening:
// provisioning and Reconcile work, nothing is served and the address's
// port stays closed until Serve. URL and HTTPURL give the address of
// WithAddr until then (its port, when it is 0, is known after Serve).
func WithServeLater() Option { return func(s *settings) { s.later = true } }

// Serve opens the data backend of every provisioned realm and then
// listens and serves, on a platform started WithServeLater. It fails,
// listening on nothing, when a realm's data backend cannot open: a realm
// whose data backend cannot attach is never served.
func (p *Platform) Serve() error {
	if !p.set.later {
		return fmt.Errorf("platformtest: Serve: the platform serves since Start (WithServeLater was not given)")
	}
	var realms []string
	p.reg.View(func(s *registry.State) {
		for _, ri := range s.Realms() {
			realms = append(realms, ri.Name)
		}
	})
	for _, name := range realms {
		if err := p.fleet.Open(context.Background(), name); err != nil {
			return fmt.Errorf("realm %s: its data backend cannot attach: %w", name, err)
		}
	}
	ln, err := net.Listen("tcp", p.set.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", p.set.addr, err)
	}
	p.addr = ln.Addr().String()
	if err := p.rt.Start(ln); err != nil {
		_ = ln.Close()
		return err
	}
	p.log.Info("platform listening", "url", p.URL())
	return nil
}

// listenNow listens on the settings' address, unless WithServeLater
// defers it (nil listener): then the address is resolved for the HTTP
// edge's loopback rule, as Serve's listener will have it.
func listenNow(set settings) (net.Listener, net.Addr, error) {
	if set.later {
		at, err := net.ResolveTCPAddr("tcp", set.addr)
		if err != nil {
			return nil, nil, fmt.Errorf("listen on %s: %w", set.addr, err)
		}
		return nil, at, nil
	}
	ln, err := net.Listen("tcp", set.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", set.addr, err)
	}
	return ln, ln.Addr(), nil
}

// closeListener closes ln, if any.
func closeListener(ln net.Listener) {
	if ln != nil {
		_ = ln.Close()
	}
}
