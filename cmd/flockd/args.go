// This file holds the parsing of a command line shared by serving and the
// subcommands that take flags.

package main

import (
	"errors"
	"flag"
	"fmt"
)

// parseArgs parses args into fs. help is true when -h asked for the usage
// (fs printed it); an argument left over is an error.
func parseArgs(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, err
	}
	if fs.NArg() > 0 {
		return false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return false, nil
}
