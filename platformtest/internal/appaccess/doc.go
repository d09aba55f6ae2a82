// Package appaccess is the fake platform's cross-app discovery service
// (docs/wire.md, cross-app reads). On every app realm it serves
//
//	sys.appaccess.resolve   [{"app": name}] → the provider's shared catalog per stage
//	sys.appaccess.list      []              → every provider of the project (wildcard grant)
//
// for the realm's app, the consumer. It reads grants, apps, realms and data
// templates from internal/registry. A provider's catalog holds its tables
// and transforms that are not private (never error-logs), with their
// columns; a stage appears only where the provider has a data backend in
// the consumer's project and shares something there.
//
// Refusals (WAMP ERROR, args [message]), in this order: no grant naming
// the provider or the wildcard → sys.appaccess.error.no_grant; no app of
// that name → sys.appaccess.error.unknown_app; no data backend of it in
// the project → sys.appaccess.error.provider_not_installed; a missing or
// non-string name → wamp.error.invalid_argument. The fake has no PLATFORM
// apps: every app of a project is a provider.
package appaccess
