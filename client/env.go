// This file holds envSource: the device environment, explicit or from the
// process, and its /data/env mirror.

package client

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/flockgo/ironflock/internal/wire"
)

// envSource reads the device environment: variables from a map (WithEnv) or
// the process, and the agent's /data/env mirror of them (docs/wire.md §3).
type envSource struct {
	// vars are the variables of an explicit environment, nil for the
	// process environment (an explicit one of none is empty, not nil): a
	// client keeps them for its life, and a slice costs half the map they
	// come in. They are few, and read by New and each connection attempt.
	vars   []envVar
	dir    string // mirror directory
	logger *slog.Logger
}

// envVar is a variable of an explicit environment.
type envVar struct{ name, value string }

func newEnvSource(s *settings, logger *slog.Logger) envSource {
	e := envSource{logger: logger}
	if s.env != nil {
		e.vars = make([]envVar, 0, len(s.env))
		for k, v := range s.env {
			e.vars = append(e.vars, envVar{k, v})
		}
	}
	switch {
	case s.envDir != "":
		e.dir = s.envDir
	case e.get(wire.EnvEnvDir) != "":
		e.dir = e.get(wire.EnvEnvDir)
	default:
		e.dir = wire.DefaultEnvDir
	}
	return e
}

// get returns an environment variable.
func (e envSource) get(name string) string {
	if e.vars != nil {
		for _, v := range e.vars {
			if v.name == name {
				return v.value
			}
		}
		return ""
	}
	return os.Getenv(name)
}

// unreadableWarning is logged once per process (docs/wire.md §3).
var unreadableWarning sync.Once

// fileState says what the mirror holds for a name.
type fileState int

const (
	fileAbsent fileState = iota
	fileValue
	fileUnreadable
)

func (e envSource) readFile(name string) (string, fileState) {
	b, err := os.ReadFile(filepath.Join(e.dir, name+".txt"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", fileAbsent
		}
		unreadableWarning.Do(func() {
			e.logger.Warn("ironflock: the environment mirror is not readable; using environment variables",
				"dir", e.dir, "error", err)
		})
		return "", fileUnreadable
	}
	return strings.TrimSpace(string(b)), fileValue
}

// mirrored returns a value from the mirror file when it holds one (an empty
// file counts as absent), else the environment variable.
func (e envSource) mirrored(name string) string {
	if v, st := e.readFile(name); st == fileValue && v != "" {
		return v
	}
	return strings.TrimSpace(e.get(name))
}

// live returns a value with the "live" rules of docs/wire.md §3: a mirror file
// is authoritative even when empty; with the mirror present but the file
// absent the value is none; without a mirror the variable is used.
func (e envSource) live(name string) string {
	v, st := e.readFile(name)
	switch st {
	case fileValue:
		return v
	case fileUnreadable:
		return strings.TrimSpace(e.get(name))
	}
	if _, st := e.readFile(wire.EnvSerialNumber); st == fileValue {
		return ""
	}
	return strings.TrimSpace(e.get(name))
}
