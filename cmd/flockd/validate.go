// This file holds the validate command: flockd validate DIR checks the
// templates of an app (DIR/.ironflock/data-template.yml and
// ai-template.yml, or DIR itself when it is the .ironflock folder).

package main

import (
	"context"
	"errors"
	"io"

	"github.com/flockgo/ironflock/template"
)

// errInvalidTemplates makes flockd exit with status 1 after the report.
var errInvalidTemplates = errors.New("the templates have errors")

// validateCommand prints the findings of an app's templates, one per line
// with file, line and column, and a summary per file. It fails when a
// finding is an error, when neither template exists or a file cannot be
// read.
func validateCommand(_ context.Context, args []string, stdout, _ io.Writer) error {
	if len(args) != 1 || args[0] == "" || args[0] == "-h" || args[0] == "--help" {
		return errors.New("usage: flockd validate DIR (an app folder holding .ironflock, or the .ironflock folder)")
	}
	report, err := template.ValidateDir(args[0])
	if err != nil {
		return err
	}
	if err := report.Write(stdout); err != nil {
		return err
	}
	if !report.OK() {
		return errInvalidTemplates
	}
	return nil
}
