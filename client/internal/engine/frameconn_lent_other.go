//go:build !unix

package engine

import "errors"

// canLend says a frameConn over a socket can wait without a buffer: only
// on Unix.
const canLend = false

// readFD is not called where canLend is false.
func readFD(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
