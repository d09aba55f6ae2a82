// This file holds flockd's side of the HTTP edge (docs/flockd.md, "Hosts
// and origins"): the flags that widen its Host rule (-allow-host) and its
// Origin rule for WebSocket links (-allow-origin).

package main

import (
	"flag"
	"strings"

	"github.com/flockgo/ironflock/platformtest"
)

// listFlag is a flag that may be given several times, each time with one
// value or several separated by commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set adds the comma-separated values of one occurrence of the flag.
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// edgeFlags are the edge's command-line flags.
type edgeFlags struct {
	hosts, origins listFlag
}

func addEdgeFlags(fs *flag.FlagSet) *edgeFlags {
	f := &edgeFlags{}
	fs.Var(&f.hosts, "allow-host", "also answer requests for host `NAME` while listening on loopback, where only localhost, 127.x.y.z and ::1 are answered\n(a guard against DNS rebinding; repeat it or separate names with commas)")
	fs.Var(&f.origins, "allow-origin", "let web pages of `ORIGIN` (scheme://host[:port]) open WAMP WebSocket links, besides flockd's own pages\n(programs that send no Origin always may; repeat it or separate origins with commas)")
	return f
}

// options returns the platform options of the flags.
func (f *edgeFlags) options() []platformtest.Option {
	return []platformtest.Option{platformtest.WithAllowedHosts(f.hosts...), platformtest.WithAllowedOrigins(f.origins...)}
}
