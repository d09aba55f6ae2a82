// This file holds the service: its attachment to a realm and the two
// procedures.

package appaccess

import (
	"context"
	"fmt"
	"strings"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Service is the discovery service of a platform.
type Service struct {
	reg *registry.Registry
}

// New returns the discovery service over reg.
func New(reg *registry.Registry) *Service { return &Service{reg: reg} }

// Name returns "appaccess".
func (*Service) Name() string { return "appaccess" }

// Attach registers sys.appaccess.resolve and sys.appaccess.list on the
// realm of a consumer app.
func (s *Service) Attach(h *realm.Host) error {
	consumer := h.Realm
	if err := h.Register(wire.AppAccessResolve, func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return s.resolve(consumer, inv.Arguments)
	}, nil); err != nil {
		return err
	}
	return h.Register(wire.AppAccessList, func(context.Context, *wamp.Invocation) client.InvokeResult {
		return s.list(consumer)
	}, nil)
}

// resolve answers sys.appaccess.resolve.
func (s *Service) resolve(consumer realm.Info, args wamp.List) client.InvokeResult {
	var name string
	if len(args) > 0 {
		if m, ok := wamp.AsDict(args[0]); ok {
			name, _ = m["app"].(string)
		}
	}
	if name == "" {
		return refusal(wire.ErrInvalidArgument, "sys.appaccess.resolve: args[0].app must be the provider app's name")
	}
	var granted bool
	var provider *registry.App
	var realms []realm.Info
	var src string
	s.reg.View(func(st *registry.State) {
		granted = st.Granted(consumer.Swarm, consumer.App, name)
		if provider = st.AppByName(name); provider != nil {
			src = provider.DataTemplate
			realms = providerRealms(st, consumer.Swarm, provider.Key)
		}
	})
	switch {
	case !granted:
		return refusal(wire.ErrAppAccessNoGrant, "no grant lets app %d read app %q in project %d", consumer.App, name, consumer.Swarm)
	case provider == nil:
		return refusal(wire.ErrAppAccessUnknownApp, "no app %q", name)
	case len(realms) == 0:
		return refusal(wire.ErrAppAccessNotInstalled, "app %q has no data backend in project %d", name, consumer.Swarm)
	}
	info, err := describe(provider.Key, src, realms)
	if err != nil {
		return refusal(wire.ErrRuntimeError, "app %q: %v", name, err)
	}
	info["app"] = name // the caller's spelling
	return client.InvokeResult{Args: wamp.List{info}}
}

// list answers sys.appaccess.list: every other app of the project that
// shares something, for a consumer with the wildcard grant.
func (s *Service) list(consumer realm.Info) client.InvokeResult {
	type provider struct {
		key       int
		name, src string
		realms    []realm.Info
	}
	var granted bool
	var providers []provider
	s.reg.View(func(st *registry.State) {
		if granted = st.WildcardGranted(consumer.Swarm, consumer.App); !granted {
			return
		}
		for _, a := range st.Apps() {
			if a.Key == consumer.App {
				continue
			}
			if rs := providerRealms(st, consumer.Swarm, a.Key); len(rs) > 0 {
				providers = append(providers, provider{a.Key, a.Name, a.DataTemplate, rs})
			}
		}
	})
	if !granted {
		return refusal(wire.ErrAppAccessNoGrant, "listing providers needs the wildcard grant; app %d holds none in project %d", consumer.App, consumer.Swarm)
	}
	out := wamp.List{}
	for _, p := range providers {
		info, err := describe(p.key, p.src, p.realms)
		if err != nil || len(info["stages"].(map[string]any)) == 0 {
			continue
		}
		info["app"] = strings.ToLower(p.name)
		out = append(out, info)
	}
	return client.InvokeResult{Args: wamp.List{out}}
}

// providerRealms returns the realms of app in project swarm.
func providerRealms(st *registry.State, swarm, app int) []realm.Info {
	var out []realm.Info
	for _, ri := range st.Realms() {
		if ri.Swarm == swarm && ri.App == app {
			out = append(out, ri)
		}
	}
	return out
}

func refusal(uri, format string, a ...any) client.InvokeResult {
	return client.InvokeResult{Err: wamp.URI(uri), Args: wamp.List{fmt.Sprintf(format, a...)}}
}
