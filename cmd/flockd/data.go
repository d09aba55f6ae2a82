// This file holds flockd's data folder (docs/flockd.md §8): the flags
// -data, -memory and -allow-drop, the folder to use (owner.go: the default
// .flockd/NAME beside the config file, or .flockd/demo in the working
// folder for the demo, and which configuration a folder belongs to), and
// the check command, flockd check, which checks a folder without serving
// it.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// dataFlags are the data folder's command-line flags.
type dataFlags struct {
	dir        *string
	memory     *bool
	allowDrop  *bool
	memoryRows *int64
	// memoryBytes bounds the bytes of the rows in memory.
	memoryBytes *int64
}

func addDataFlags(fs *flag.FlagSet) dataFlags {
	return dataFlags{
		dir: fs.String("data", "", "keep the world in data folder `DIR` across restarts (default: "+defaultDataDir+
			"/NAME beside the -config file NAME.yml, or "+defaultDataDir+"/"+demoName+" in the working folder for the demo)"),
		memory:     fs.Bool("memory", false, "keep nothing: a throwaway run in memory, no data folder"),
		allowDrop:  fs.Bool("allow-drop", false, "let a changed data template in the config drop kept tables, columns or file namespaces"),
		memoryRows: fs.Int64("memory-rows", platformtest.DefaultMemoryRowLimit, "with -memory, keep at most `n` table rows; appends past it are refused with storage_full (0: no bound)"),
		memoryBytes: fs.Int64("memory-bytes", platformtest.DefaultMemoryByteLimit, "with -memory, keep at most `n` bytes of table rows (as estimated: "+
			"their values and about 300 bytes each); appends past it are refused with storage_full (0: no bound)"),
	}
}

// folder returns the data folder to use, "" for -memory. It refuses a
// folder that belongs to another configuration (owner.go).
func (f dataFlags) folder(config string) (string, error) {
	switch {
	case *f.memory && *f.dir != "":
		return "", errors.New("-memory and -data exclude each other")
	case *f.memory:
		return "", nil
	case *f.dir != "":
		return *f.dir, checkOwner(*f.dir, config)
	}
	if legacy, err := legacyFolder(config); legacy != "" || err != nil {
		return legacy, err
	}
	dir := defaultFolder(config)
	return dir, checkOwner(dir, config)
}

// options returns the platform option of the folder (none in memory) and
// the reconciliation's options.
func (f dataFlags) options(dir string) ([]platformtest.Option, []platformtest.ReconcileOption) {
	var ropts []platformtest.ReconcileOption
	if *f.allowDrop {
		ropts = append(ropts, platformtest.AllowDrop())
	}
	if dir == "" {
		return []platformtest.Option{platformtest.WithMemoryRowLimit(*f.memoryRows), platformtest.WithMemoryByteLimit(*f.memoryBytes)}, ropts
	}
	return []platformtest.Option{platformtest.WithDataDir(dir)}, ropts
}

// checkCommand checks a data folder without serving it: flockd check
// [-data DIR | -config FILE]. It prints what it checked and fails, naming
// the file and what is wrong, when the folder would be refused at start.
func checkCommand(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("flockd check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "", "the data folder `DIR` to check (default: "+defaultDataDir+"/NAME beside -config NAME.yml, or "+defaultDataDir+"/"+demoName+" in the working folder)")
	config := fs.String("config", "", "the config `file` whose default data folder to check")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flockd check [-data DIR | -config FILE]")
		fs.PrintDefaults()
	}
	if help, err := parseArgs(fs, args); help || err != nil {
		return err
	}
	if *dir == "" {
		legacy, err := legacyFolder(*config)
		if err != nil {
			return err
		}
		if *dir = legacy; legacy == "" {
			*dir = defaultFolder(*config)
		}
	}
	rep, err := platformtest.CheckDataDir(*dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "data folder %s: format %d", rep.Dir, rep.Format)
	if rep.Format < rep.Current {
		fmt.Fprintf(stdout, " (older: flockd upgrades it to format %d at its next start, after a copy)", rep.Current)
	}
	fmt.Fprintln(stdout)
	for _, f := range rep.Files {
		fmt.Fprintf(stdout, "  %-14s %10d bytes  %d values checked\n", f.Name, f.Bytes, f.Values)
	}
	fmt.Fprintf(stdout, "registry: %d projects, %d devices, %d apps, %d installations, %d users\n",
		rep.Projects, rep.Devices, rep.Apps, rep.Installations, rep.Users)
	fmt.Fprintf(stdout, "tables: %d rows\nfiles: %d objects, %d bytes, each with its content", rep.Rows, rep.Objects, rep.ObjectBytes)
	if rep.ObjectBytes > 0 {
		fmt.Fprintf(stdout, " (every byte read and compared with its record's SHA-256 in %s, %.0f MB/s)",
			rep.HashTime.Round(time.Millisecond), float64(rep.ObjectBytes)/1e6/max(rep.HashTime.Seconds(), 1e-9))
	}
	fmt.Fprintln(stdout)
	if rep.LeftBlobs > 0 {
		fmt.Fprintf(stdout, "files: %d blobs without a record or half written (a kill left them); the next start removes them\n", rep.LeftBlobs)
	}
	fmt.Fprintln(stdout, "ok: every file reads whole")
	return nil
}
