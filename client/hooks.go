// This file holds the test hooks of a Client: moments the tests of this
// package wait for or steer and cannot otherwise observe. They are nil
// outside tests.

package client

import "github.com/flockgo/ironflock/client/internal/engine"

// testHooks are called, when set, at the moments they name.
type testHooks struct {
	// waiting runs when an operation starts waiting for a session.
	waiting func()
	// using runs when an operation got the session it is about to use.
	using func(*engine.Session)
}
