// This file holds the env command: flockd env DEVICE [APP] asks a running
// flockd's console (GET /env/{device}) for an installation's device
// environment and prints it, as shell export lines by default, so that
//
//	eval "$(flockd env sensor-1)"
//
// configures a shell for a device program.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// envTokenVar names the environment variable flockd env reads the console
// token from when -token is not given.
const envTokenVar = "FLOCKD_CONSOLE_TOKEN"

// envTimeout bounds the request to flockd.
const envTimeout = 30 * time.Second

const envUsage = "usage: flockd env [-listen ADDR] [-token TOKEN] [-stage DEV|PROD] [-format shell|dotenv|json] DEVICE [APP]"

// envCommand prints the environment of one installation of a running
// flockd.
func envCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("flockd env", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "`address` of the running flockd (its -listen), or its http:// URL")
	token := fs.String("token", "", "the console `token` flockd printed, when it asks for one (default: $"+envTokenVar+")")
	stage := fs.String("stage", "", "the installation's `stage` (DEV or PROD), when the device has the app in both")
	format := fs.String("format", "shell", "`format`: shell (export KEY='value' lines for eval), dotenv (client.WithEnvFile) or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, envUsage)
		fmt.Fprintln(stderr, `
Prints the device environment of DEVICE's installation of APP (APP may be
left out when the device has one installation) from the running flockd, so
that eval "$(flockd env sensor-1)" configures a shell for a device program.
DEVICE is a device's name, key or serial. Flags may follow the arguments.`)
		fs.PrintDefaults()
	}
	// Flags may come before, between or after the positional arguments.
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(pos) < 1 || len(pos) > 2 {
		return errors.New(envUsage)
	}
	base, err := flockdURL(*listen)
	if err != nil {
		return err
	}
	q := url.Values{"format": {*format}}
	if len(pos) == 2 {
		q.Set("app", pos[1])
	}
	if *stage != "" {
		q.Set("stage", *stage)
	}
	tok := *token
	if tok == "" {
		tok = os.Getenv(envTokenVar)
	}
	body, err := getEnv(ctx, base+"/env/"+url.PathEscape(pos[0])+"?"+q.Encode(), tok)
	if err != nil {
		return err
	}
	_, err = stdout.Write(body)
	return err
}

// flockdURL turns a listen address (or an http:// URL) into the base URL
// of flockd's HTTP server; an address that listens everywhere is asked on
// loopback.
func flockdURL(listen string) (string, error) {
	if strings.HasPrefix(listen, "http://") || strings.HasPrefix(listen, "https://") {
		return strings.TrimSuffix(listen, "/"), nil
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("-listen %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// getEnv fetches url with the console token and returns the body of a 200
// answer, or an error that says what flockd answered.
func getEnv(ctx context.Context, u, token string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, envTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach flockd: %w (is it running? -listen names its address)", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading flockd's answer: %w", err)
	}
	switch {
	case res.StatusCode == http.StatusOK:
		return body, nil
	case res.Header.Get(platformtest.ConsoleHeader) == "":
		return nil, fmt.Errorf("%s answered %s without its console: flockd env needs a flockd serving its console (started without -no-console)", req.URL.Host, res.Status)
	case res.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Errorf("flockd wants its console token: pass -token TOKEN or set %s (the token of the line \"console token\" in flockd's log)", envTokenVar)
	}
	return nil, errors.New(strings.TrimSpace(string(body)))
}
