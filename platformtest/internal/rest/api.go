// Package rest serves the management REST API of the fake platform
// (docs/fake.md §9): devices, apps on devices, apps, releases and groups,
// under /v1/platform and /v1/ironflock, with bearer-token users scoped to
// their projects, JSON error bodies {"error", "code"} and the OpenAPI
// document; and, under /v1/flockd, flockd's own route calling an app's
// agent tools (not part of the platform's API). It reads and changes the
// provisioned world through internal/registry; it knows nothing of the
// router but what its Config hands in.
package rest

import (
	"context"
	"log/slog"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/agents"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Config is what the API needs from the platform.
type Config struct {
	Registry *registry.Registry
	Clock    realm.Clock
	Log      *slog.Logger
	// Online returns the keys of the devices with a joined session (their
	// status is CONNECTED). It is called without the registry's lock.
	Online func() map[int]bool
	// Changed is called after a successful change, without the
	// registry's lock: an install may have created a realm the router
	// must bring up.
	Changed func()
	// Agents is the agent runtime flockd's tool route calls tools
	// through (flockd_tools.go).
	Agents *agents.Runtime
	// RefreshTransform recomputes and publishes a transform of a realm's
	// data backend (flockd_transforms.go) and tells whether the store
	// keeps its result and when it computed it (zero: it does not say).
	RefreshTransform func(ctx context.Context, realm, transform string) (materialized bool, refreshed time.Time, err error)
}

// API is the management REST API of one platform.
type API struct {
	cfg   Config
	reg   *registry.Registry
	clock realm.Clock
	log   *slog.Logger
}

// New returns the API over cfg.Registry.
func New(cfg Config) *API {
	return &API{cfg: cfg, reg: cfg.Registry, clock: cfg.Clock, log: cfg.Log}
}
