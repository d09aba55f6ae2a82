// Package management is the Go client of the IronFlock management REST API
// (devices, apps on devices, apps, releases and groups), as specified by
// docs/fake.md §9 and served by the real platform and by the fake in
// package platformtest (and flockd).
//
//	c := management.New("http://127.0.0.1:8080", "alice-token")
//	devices, err := c.ListDevices(ctx)
//
// Every method takes a context first and maps one route. An answer other
// than the route's success status is an *Error carrying the HTTP status,
// the API's stable code and its message; match it with errors.As, or with
// errors.Is against the sentinels ErrNotFound, ErrForbidden, ... which
// compare codes.
//
// A release build may outlast a request: CreateRelease waits for it by
// default (bounded by WaitTimeout) and returns the release as the API
// left it, possibly still StatusBuilding; Wait polls it until it ends.
package management
