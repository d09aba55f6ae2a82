// This file holds flockd's side of the web console (docs/flockd.md §7):
// its flags, the token a console on anything but loopback needs (given
// with -console-token or generated, and printed in the log), and the log
// line that says where the console is.

package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"log/slog"
	"net"
	"net/url"
	"strings"

	"github.com/flockgo/ironflock/platformtest"
)

// consoleFlags are the console's command-line flags.
type consoleFlags struct {
	off   *bool
	write *bool
	token *string
}

func addConsoleFlags(fs *flag.FlagSet) consoleFlags {
	return consoleFlags{
		off:   fs.Bool("no-console", false, "serve no web console at /"),
		write: fs.Bool("console-write", false, "let the console inject faults and call agent tools (default: read-only)"),
		token: fs.String("console-token", "", "require `token` from console requests (default: none on loopback, generated elsewhere)"),
	}
}

// console returns the platform option of the console, nil when it is off,
// and its token: the flag's, or a generated one when the listen address is
// not loopback.
func (f consoleFlags) console(listen string) (platformtest.Option, string) {
	if *f.off {
		return nil, ""
	}
	token := *f.token
	if token == "" && !loopback(listen) {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		token = hex.EncodeToString(b)
	}
	return platformtest.WithConsole(platformtest.Console{Write: *f.write, Token: token}), token
}

// loopback reports whether a listen address accepts only local
// connections: its host is localhost or a loopback IP. An empty host or
// an unspecified address (":8080", "0.0.0.0:8080") listens everywhere.
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = listen
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// logConsole says where the console is, and its token.
func logConsole(log *slog.Logger, p *platformtest.Platform, f consoleFlags, token string) {
	if *f.off {
		return
	}
	mode := "read-only"
	if *f.write {
		mode = "faults and tool calls allowed"
	}
	u := p.HTTPURL() + "/"
	log.Info("console", "url", u, "mode", mode)
	if token != "" {
		log.Info("console token", "token", token, "open", u+"?"+url.Values{"token": {token}}.Encode())
	}
}
