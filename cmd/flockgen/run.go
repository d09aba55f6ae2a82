// This file holds the command line: flags, generation, -check.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/flockgo/ironflock/internal/flockgen"
	ver "github.com/flockgo/ironflock/internal/version"
)

// errReported makes the command exit with status 1 after its output says
// why.
var errReported = errors.New("flockgen: failed")

// providers is the repeatable -provider flag.
type providers map[string]string

func (p providers) String() string { return fmt.Sprint(map[string]string(p)) }

func (p providers) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want APP=DIR (the consumed app's name and its app folder), got %q", v)
	}
	p[name] = dir
	return nil
}

// run is the command; ctx is unused (generation does not block) but kept
// for the shape of every command of the module.
func run(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("flockgen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "", "the Go `file` to write (required)")
	pkg := fl.String("pkg", "", "the package `name` (default: that of the Go files beside the file, or its folder's name)")
	check := fl.Bool("check", false, "write nothing; exit 1 naming what changed when the file is not what the templates give")
	showVersion := fl.Bool("version", false, "print flockgen's version and exit")
	provs := providers{}
	fl.Var(provs, "provider", "`APP=DIR`: the app folder of a consumed app, whose shared tables get handles (repeatable)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: flockgen [-check] -o FILE [-pkg NAME] [-provider APP=DIR]... [APPDIR]\n       flockgen -version")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errReported
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, "flockgen", ver.String(version))
		return err
	}
	if *out == "" || fl.NArg() > 1 {
		fl.Usage()
		return errReported
	}
	dir := "."
	if fl.NArg() == 1 {
		dir = fl.Arg(0)
	}
	name := *pkg
	if name == "" {
		name = packageOf(*out)
	}
	cfg := flockgen.Config{Dir: dir, Package: name, Providers: provs}
	if *check {
		return runCheck(cfg, *out, stdout, stderr)
	}
	res, err := flockgen.Generate(cfg)
	if err != nil {
		return report(err, stderr)
	}
	warn(res.Warnings, stderr)
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(*out, res.Code, 0o644)
}

// runCheck is flockgen -check.
func runCheck(cfg flockgen.Config, out string, stdout, stderr io.Writer) error {
	existing, err := os.ReadFile(out)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "flockgen: %s does not exist; run flockgen without -check to write it\n", out)
		return errReported
	}
	if err != nil {
		return err
	}
	changes, err := flockgen.Check(cfg, existing)
	if err != nil {
		return report(err, stderr)
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "flockgen: %s is up to date\n", out)
		return nil
	}
	fmt.Fprintf(stderr, "flockgen: %s is stale; run flockgen (go generate) again:\n", out)
	for _, c := range changes {
		fmt.Fprintf(stderr, "\t%s\n", c)
	}
	return errReported
}

// report prints a refusal: the findings of an invalid template as flockd
// validate prints them, or the generator's problems.
func report(err error, stderr io.Writer) error {
	var te *flockgen.TemplateError
	if errors.As(err, &te) {
		if werr := te.Report.Write(stderr); werr != nil {
			return werr
		}
		return errReported
	}
	return err
}

// warn prints the warnings of the templates and of the generator.
func warn(ws []string, stderr io.Writer) {
	for _, w := range ws {
		fmt.Fprintln(stderr, w)
	}
}

// packageOf returns the package of the Go files in the folder of file
// (other than file itself and tests of an external package), or the
// folder's name made a Go identifier.
func packageOf(file string) string {
	dir := filepath.Dir(file)
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, m := range matches {
		if filepath.Clean(m) == filepath.Clean(file) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), m, nil, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		name := f.Name.Name
		if strings.HasSuffix(m, "_test.go") && strings.HasSuffix(name, "_test") {
			continue
		}
		return name
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(abs)) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9' && b.Len() > 0) || r == '_' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "app"
	}
	return b.String()
}
