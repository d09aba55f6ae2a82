// This file holds the environment file (docs/flockd.md §3): the router URLs,
// each installation's device environment, the users' tokens and, with
// -db, each app backend's read-only SQL connection string as JSON,
// written atomically.

package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/flockgo/ironflock/platformtest"
)

type envFile struct {
	WSURL         string            `json:"ws_url"`
	HTTPURL       string            `json:"http_url"`
	Installations []envInstallation `json:"installations"`
	Tokens        map[string]string `json:"tokens"`
	// SQL holds the read-only connection string of each app backend with
	// -db (db.go).
	SQL []envSQL `json:"sql,omitempty"`
}

type envInstallation struct {
	Project string            `json:"project"`
	Device  string            `json:"device"`
	App     string            `json:"app"`
	Stage   string            `json:"stage"`
	Env     map[string]string `json:"env"`
}

func writeEnvFile(path string, p *platformtest.Platform, res *platformtest.SeedResult, sql []envSQL) error {
	f := envFile{WSURL: p.URL(), HTTPURL: p.HTTPURL(), Installations: []envInstallation{}, Tokens: res.Tokens, SQL: sql}
	if f.Tokens == nil {
		f.Tokens = map[string]string{}
	}
	for _, in := range res.Installations {
		f.Installations = append(f.Installations, envInstallation{
			Project: in.Device().Project().Name(),
			Device:  in.Device().Name(),
			App:     in.App().Name(),
			Stage:   string(in.Stage()),
			Env:     in.Env(),
		})
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes data beside path and renames it over path, so a
// reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close(), os.Chmod(tmp.Name(), 0o600)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
