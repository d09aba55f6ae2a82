// Command flockd serves a fake IronFlock platform (package platformtest)
// on a local address, for developing device apps without the cloud:
//
//	flockd [-listen 127.0.0.1:8080] [-config flockd.yml] [-data DIR | -memory] [-db postgres://…] [-env-file env.json] [-v]
//	flockd -version
//	flockd validate DIR
//	flockd check [-data DIR]
//	flockd env [-listen ADDR] [-token TOKEN] [-stage DEV|PROD] [-format shell|dotenv|json] DEVICE [APP]
//
// It keeps its world (projects, devices, credentials, tokens…) in a data
// folder, .flockd/NAME beside the config file NAME.yml or .flockd/demo in
// the working folder for the demo, so that a restart gives the same
// identities; -memory keeps nothing. A folder belongs to one
// configuration: another is refused, naming the file it belongs to.
// At each start the config is reconciled with the folder (docs/flockd.md
// §8); flockd check checks a folder without serving it.
//
// Without -config it serves a demo: project "demo" with devices
// "sensor-1" and "sensor-2" running app "quickstart" in DEV, and user
// "alice" (token "alice-token", admin of demo) for the management REST
// API under /v1/platform (and /v1/ironflock). With
// -env-file it writes, once listening, the router URLs, every
// installation's device environment (what a device agent injects) and the
// users' bearer tokens as JSON. SIGINT or SIGTERM stop it.
//
// Its own route POST /v1/flockd/devices/{device_key}/apps/{app_key}/agents/{agent}/tools/{tool}
// (not part of the platform's API) calls a tool of an app's agent template
// on a device, as the platform's agent runtime does, so that curl can try
// a device's tools (docs/flockd.md §6).
//
// At / it serves a web console (docs/flockd.md §7): the fleet, sessions,
// live traffic, tables with charts, files and agent tools. It is read-only
// unless -console-write allows its fault buttons and tool calls; it needs
// a token (-console-token, else generated and logged) when flockd listens
// on anything but loopback; -no-console turns it off.
//
// Listening on loopback (the default), flockd answers only requests for
// localhost, 127.x.y.z or ::1 (421 otherwise, against DNS rebinding);
// -allow-host names more hosts. WebSocket links from web pages of other
// origins than flockd's own are refused (403) unless -allow-origin names
// them; programs that send no Origin, such as devices, always may connect.
//
// Every device app may set its device's position
// (ironflock.location_service.update, SetDeviceLocation in the SDK); the
// management API's device records and the console's fleet page show it.
//
// The demo app has a table sensordata (tsp, temperature, humidity, source)
// holding a few readings of each device, so apps have data to read, a few
// stored files (an image among them) and an agent template whose tool
// read_sensor the demo device sensor-2 serves: flockd runs that device
// in-process with the SDK, so that every console page has something to
// show. sensor-1 is left to the user's own device program.
//
// Every app also gets the platform's file service (files.read.*,
// files.write.*) with its object store on the same HTTP server: presigned
// URLs under /store/ and permanent URLs under /f/. The config's files
// section sets the inline limit, direct transfers and quotas; objects over
// 1 MiB are kept in files under -spill-dir, which flockd clears at start
// of what killed runs left.
//
// With -db URL the tables live in that PostgreSQL database instead of in
// memory (docs/postgres.md): a schema per app backend, created or
// migrated at start (a change that would drop stored values is refused
// unless -allow-drop), transforms computed from their SQL, dropAfter
// and downsample applied, and a read-only connection string per app
// backend, printed and written to the environment file. A server that
// cannot be reached stops flockd at start, unless -db-wait gives it time;
// so does a configuration whose transform PostgreSQL refuses, with nothing
// of it kept. flockd opens its port (and logs that it listens) only once
// every app backend is open.
//
// flockd validate DIR checks the templates of an app folder (DIR or
// DIR/.ironflock): it prints every finding and exits with status 1 when
// one is an error.
//
// flockd env DEVICE [APP] asks a running flockd (its console, with the
// console's token rules) for the device environment of DEVICE's
// installation of APP and prints it as shell export lines, so that
// eval "$(flockd env sensor-1)" configures a shell for a device program;
// -format dotenv writes what client.WithEnvFile reads, -format json an
// object.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	ver "github.com/flockgo/ironflock/internal/version"
	"github.com/flockgo/ironflock/platformtest"
)

// version is flockd's version, stamped by the release build
// (scripts/release: -ldflags "-X main.version=v1.2.0"); flockd -version
// prints it, or what the toolchain recorded (internal/version).
var version = ver.Devel

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "flockd:", err)
		os.Exit(1)
	}
}

// command is a subcommand: flockd NAME ARGS...
type command struct {
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	summary string // for flockd -h
}

// commands holds the subcommands; without one flockd serves a platform.
var commands = map[string]command{
	"validate": {validateCommand, "check the templates of an app folder: flockd validate DIR"},                          // validate.go
	"check":    {checkCommand, "check a data folder without serving it: flockd check [-data DIR]"},                      // data.go
	"env":      {envCommand, "print a device's environment from a running flockd: eval \"$(flockd env DEVICE [APP])\""}, // envcmd.go
}

// run is flockd's main logic. ready, when set, is called with the platform
// once it listens and the environment file is written.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(*platformtest.Platform)) error {
	if len(args) > 0 && args[0] != "" && !strings.HasPrefix(args[0], "-") {
		cmd, ok := commands[args[0]]
		if !ok {
			return fmt.Errorf("unknown command %q: the commands are %s (run flockd -h for the options)",
				args[0], strings.Join(slices.Sorted(maps.Keys(commands)), ", "))
		}
		return cmd.run(ctx, args[1:], stdout, stderr)
	}
	return serve(ctx, args, stdout, stderr, ready)
}
