//go:build !unix

package router

import (
	"errors"
	"net"
)

// init leaves lr reading c directly: only Unix sockets are waited on
// without a buffer.
func (lr *lentReader) init(net.Conn) {}

// rawRead is not called where init set no RawConn.
func (lr *lentReader) rawRead() (int, error) { return 0, errors.ErrUnsupported }
