// This file holds the devices' dialing: from one of several local source
// addresses (-source), keeping each device's connection so that a storm
// can cut every link.

package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
)

// parseSources reads -source: local IP addresses separated by commas; ""
// lets the system choose.
func parseSources(s string) ([]net.IP, error) {
	if s == "" {
		return nil, nil
	}
	var ips []net.IP
	for _, part := range strings.Split(s, ",") {
		ip := net.ParseIP(strings.TrimSpace(part))
		if ip == nil {
			return nil, fmt.Errorf("-source: %q is not an IP address", part)
		}
		ips = append(ips, ip)
	}
	return ips, nil
}

// connHolder dials one device's links from its source address and keeps
// the current one.
type connHolder struct {
	d    net.Dialer
	mu   sync.Mutex
	conn net.Conn
}

// newConnHolder dials from ip (nil: any).
func newConnHolder(ip net.IP) *connHolder {
	h := &connHolder{}
	if ip != nil {
		h.d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	return h
}

// dial is the device's client.WithDialer function.
func (h *connHolder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := h.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.conn = c
	h.mu.Unlock()
	return c, nil
}

// cut closes the device's current connection, if any.
func (h *connHolder) cut() {
	h.mu.Lock()
	c := h.conn
	h.conn = nil
	h.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}
