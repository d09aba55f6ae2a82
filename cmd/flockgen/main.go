// Command flockgen writes typed Go code from an IronFlock app's templates:
// a row type, typed columns and a handle per table of
// .ironflock/data-template.yml, read-only handles on the tables of the
// apps it consumes, constants and handles for its file namespaces, and an
// argument struct per tool of .ironflock/ai-template.yml. The code is
// built on package typed.
//
//	flockgen -o FILE [-pkg NAME] [-provider APP=DIR]… [APPDIR]
//	flockgen -check -o FILE [-pkg NAME] [-provider APP=DIR]… [APPDIR]
//	flockgen -version
//
// APPDIR is the app folder holding .ironflock (default "."). The package
// name defaults to that of the Go files beside FILE, or to the name of
// FILE's folder. -provider gives the app folder of a consumed app, whose
// shared tables then get handles. In a Go file of the app:
//
//	//go:generate go run github.com/flockgo/ironflock/cmd/flockgen -o fleet/fleet.go
//
// A template that is not valid is refused with the findings flockd
// validate prints (file:line:col: path: message) and nothing is written;
// two ids that become one Go name are refused naming both. With -check
// flockgen writes nothing: it exits with status 1, naming what changed
// (table, column, …), when FILE is not what the templates give now, so
// that an app's CI can run it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	ver "github.com/flockgo/ironflock/internal/version"
)

// version is flockgen's version, stamped by the release build
// (scripts/release: -ldflags "-X main.version=v1.2.0"); flockgen -version
// prints it, or what the toolchain recorded (internal/version).
var version = ver.Devel

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1)
	}
}
