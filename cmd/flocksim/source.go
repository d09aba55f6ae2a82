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

// autoShare is how many devices dial from one loopback address when
// -source is not given and flockd listens on loopback: the kernel then
// finds a free port for a new connection in a few tries, where one
// address for every device (most of its ephemeral range in use) costs a
// search of the range per connection, the storm's reconnects included.
const autoShare = 2000

// autoSource returns the loopback address device i of n dials from when
// -source is not given: 127.0.0.1 for the first autoShare devices' share,
// then 127.0.0.2 and so on, the devices in turn (at most 127.0.0.254).
func autoSource(i, n int) net.IP {
	k := min(max((n+autoShare-1)/autoShare, 1), 254)
	return net.IPv4(127, 0, 0, byte(1+i%k))
}

// connHolder dials one device's links from its source address and keeps
// the current one.
type connHolder struct {
	d net.Dialer
	// auto, when set, dials from the source used against a loopback
	// flockd when d has none.
	auto *net.Dialer
	mu   sync.Mutex
	conn net.Conn
}

// newConnHolder dials from ip (nil: the system's choice, or auto when
// flockd is on loopback).
func newConnHolder(ip, auto net.IP) *connHolder {
	h := &connHolder{}
	h.d.Control = bindNoPort // bindport_*.go
	if ip != nil {
		h.d.LocalAddr = &net.TCPAddr{IP: ip}
	} else if auto != nil {
		h.auto = &net.Dialer{Control: bindNoPort, LocalAddr: &net.TCPAddr{IP: auto}}
	}
	return h
}

// dial is the device's client.WithDialer function.
func (h *connHolder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &h.d
	if h.auto != nil && loopback(addr) {
		d = h.auto
	}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.conn = c
	h.mu.Unlock()
	return c, nil
}

// loopback reports whether addr (host:port) names a loopback IPv4
// address or localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.To4() != nil && ip.IsLoopback()
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
