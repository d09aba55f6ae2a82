// Package location is the fake platform's location service. On every app
// realm it serves
//
//	ironflock.location_service.update   [{"long": x, "lat": y}] → RESULT without arguments
//
// It sets the position of the caller's device: the device is the one
// whose serial the router discloses as caller_authid (the session's
// identity), never one named in the arguments or in the metadata kwargs.
// long must be a number from -180 to 180 and lat one from -90 to 90,
// both inclusive; anything else (out of range, missing, not a number,
// NaN, no args[0] object) is refused with wamp.error.invalid_argument and
// a message naming the field and its range, and the stored position does
// not change. A caller whose device is no longer registered gets
// wamp.error.runtime_error.
//
// The position is kept in the device's registry record
// (registry.Device.Location) with the platform time it was set; history
// is not kept, as on the platform ("location history is not stored").
// The management REST API and the console read it from there.
package location
