// This file holds WithDialer: who opens the client's TCP connections.

package client

import (
	"context"
	"net"
)

// WithDialer makes the client open the TCP connection under each
// WebSocket link with dial instead of a net.Dialer: to dial from a chosen
// local address (a simulator holding more connections than one source
// address has ports), or to keep the connections so that a test can cut
// them. dial gets the network ("tcp") and the router's host:port, or a
// proxy's when HTTPS_PROXY applies; for wss the client still does TLS
// over the connection dial returns. A nil dial restores the default.
//
//	local := &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}
//	d := &net.Dialer{LocalAddr: local}
//	c, err := client.New(client.WithDialer(d.DialContext))
func WithDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(s *settings) { s.dial = dial }
}
