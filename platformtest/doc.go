// Package platformtest is an in-memory fake of the IronFlock platform for
// tests and local development: a WAMP router (nexus) with the platform's
// authentication and authorization, provisioning of projects, devices,
// apps and installations, a clock, fault injection and inspection of the
// traffic, all behind one HTTP server on the loopback interface.
//
//	p := platformtest.New(t)
//	dev := p.AddDevice("sensor-1")
//	app := p.AddApp("quickstart", templateYAML)
//	in := p.Install(dev, app, platformtest.Dev)
//	env := in.Env() // what a device agent injects: serial, keys, URL, credential
//
// Clients connect to URL (ws://127.0.0.1:PORT/ws-ua-usr) with the
// subprotocol wamp.2.msgpack or wamp.2.json and join the realm of an
// installation, realm-<swarm>-<app>-<dev|prod>, with WAMP-CRA.
//
// # What is faithful
//
//   - The WebSocket endpoint /ws-ua-usr, msgpack and JSON (with the WAMP
//     JSON convention for binary values), server pings every 20 seconds
//     with two missed pongs closing the link (WIRE.md §1.5).
//   - Authentication (WIRE.md §1.4): per-app credentials
//     app-<A>-<stage>-e<epoch>@<serial> with the HMAC-derived secret, the
//     previous epoch valid for 15 minutes of platform time after Rotate,
//     the legacy credential (serial, serial) on the realm of an app
//     installed on that device in that stage, case-sensitive authids with
//     leading zeros accepted, a challenge even for unknown authids, ABORT
//     wamp.error.authentication_failed on refusal (the reason only in
//     AuthLog), ABORT wamp.error.no_such_realm for a realm that does not
//     exist. Every admitted session's authid is the device serial, so
//     callees see caller_authid = serial.
//   - Authorization of role app (WIRE.md §2.9 and the platform's
//     allow-list, see the rules in authorize.go), refusals as ERROR
//     wamp.error.not_authorized, publications and calls disclosed to
//     subscribers and callees (publisher_authid, caller_authid = serial).
//   - force_reregister: a REGISTER with it takes a procedure over from
//     another session; the previous owner gets UNREGISTERED with request 0
//     and details.registration.
//   - No event is dropped for a slow network subscriber: each link queues
//     up to 32768 messages.
//   - ironflock.location_service.update is not served
//     (wamp.error.no_such_procedure), as on the real platform today.
//
// # What is not
//
//   - Services: the data backend, file service and cross-app discovery are
//     not there yet; their procedures answer wamp.error.no_such_procedure.
//   - The router does not cache authentication and authorization verdicts
//     (the real one caches them for 10 and 30 seconds): rotations and
//     uninstalls take effect for the next join at once.
//   - Role app_reader (cross-app reads) is only admitted when a grant
//     exists, and nothing can create grants yet; such a session could not
//     publish, call, subscribe or register.
//   - Uninstall leaves joined sessions alone, and realms are never removed.
//   - CBOR, WebSocket compression, salted WAMP-CRA and payload
//     pass-through mode are not offered. The JSON binary convention is
//     applied to arguments and keyword arguments only. EVENT details carry
//     the topic (pattern subscriptions) and the publisher of an app's
//     publication, nothing else; publications of the platform's own
//     services are not disclosed to network subscribers.
//   - Time: Clock shifts platform time only; the router's own timeouts run
//     on real time.
//
// # Faults and control
//
// DropConnections, FreezeConnections, Down, Up, Restart, WithholdRealm,
// ReleaseRealm and Refuse change what clients see; Clock moves platform
// time; Sessions, WaitSessions, Recorded, Publications, Calls and AuthLog
// show what happened. Everything returned is a copy.
//
// A platform made by New fails its test on a provisioning mistake (a
// duplicate name, an unknown stage...); one made by Start panics. Seeds
// (ParseSeed, Apply) return errors instead.
package platformtest
