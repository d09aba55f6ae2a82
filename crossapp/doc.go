// Package crossapp reads the data of other apps of the project: a consumer
// app opens read-only handles on a provider app's shared tables and
// transforms — history, series and realtime rows — on the provider's
// realm.
//
//	apps := crossapp.New(c) // c is the consumer's *client.Client
//	weather, err := apps.Connect(ctx, "weather",
//		crossapp.OnError(func(err error) { log.Print(err) })) // access lost later
//	rows, err := weather.GetHistory(ctx, "readings", &client.Query{Limit: 10})
//	sub, err := weather.SubscribeToTable(ctx, "readings", handler)
//
// # Access
//
// Two things open a provider to a consumer: the consumer's data template
// lists the provider under consumes (or "*"), and the project user grants
// the access (one provider, or the wildcard grant "*"). Both apps are in
// the same project. Access is read-only: the platform refuses writes,
// publications, registrations and the secret procedures on the provider's
// realm, never lists its private tables or error-logs, and shows its
// secret columns as "__secret__".
//
// # Discovery
//
// Connect asks the platform (sys.appaccess.resolve, on the consumer's own
// realm) for the provider's key and its catalog per stage: the tables and
// transforms it shares, with their columns. List (sys.appaccess.list) and
// ConnectAll need the wildcard grant; ConnectAll opens a handle on every
// provider that has a data backend in the stage and reports, or returns,
// those that fail to open.
//
// # The provider connection
//
// A handle is a second WAMP session to the same router, on the provider's
// realm realm-<swarm>-<provider key>-<stage> (by default the consumer's own
// stage), with the consumer's own credential; the platform admits it with
// role app_reader. It is a client of its own (client.Client.ForRealm),
// supervised like the consumer's connection: it reconnects, waits out a
// missing realm, pings a silent link and restores its table subscriptions.
// Its first connection is bounded (50 s, WithConnectTimeout) and fails at
// once when the platform refuses the credential (NOT_AUTHORIZED). Once
// connected, a refused rejoin makes the handle ask the platform why: a
// revoked grant ends the handle with NO_GRANT, reported to the OnError
// callback and returned by its next call; other refusals end it only when
// they persist (three refusals over at least a minute,
// WithPersistentDenial: NOT_AUTHORIZED), since the platform also refuses
// while its authorizer is briefly unavailable.
//
// Handles are cached per provider (its name in lower case) and stage:
// concurrent Connect calls share one attempt and one session, a failed
// attempt is not kept, and Close or the end of access evicts the handle.
// Every handle closes when the client stops. Use one Consumer per client.
//
// # Guards
//
// A handle checks every read against the provider's catalog before sending
// anything: a table or transform the provider does not share is
// PRIVATE_TABLE, as is a series of a transform; a query that filters on,
// selects, aggregates or groups by a column the catalog marks secret (in
// filter groups too) is SECRET_COLUMN.
//
// # Errors
//
// Access errors are *AccessError values with a stable Code — NO_GRANT,
// PROVIDER_NOT_INSTALLED, UNKNOWN_APP, PRIVATE_TABLE, NOT_AUTHORIZED,
// SECRET_COLUMN — matched with errors.Is by code or read with CodeOf. The
// platform's refusals keep their *client.WampError inside. Every method
// returns a *client.OpError naming the operation (crossapp.Connect, …) and
// the provider or the procedure.
//
// The package uses only the public API of package client.
package crossapp
