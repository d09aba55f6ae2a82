// This file holds which configuration a data folder belongs to: the
// default folder's name (.flockd/NAME beside the config file, NAME its
// file name without extension; .flockd/demo for the demo), the record
// flockd keeps in the folder (CONFIG), the refusal of a folder another
// configuration holds, and what becomes of a .flockd written before each
// configuration had its own folder (docs/flockd.md §8).

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	// defaultDataDir is the folder that holds the default data folders:
	// beside the config file, or in the working folder for the demo.
	defaultDataDir = ".flockd"
	// demoName is the demo's folder in defaultDataDir.
	demoName = "demo"
	// ownerFile is the record, in a data folder, of the configuration it
	// belongs to: the config file's absolute path, or demoOwner.
	ownerFile = "CONFIG"
	// demoOwner is ownerFile's line for the demo.
	demoOwner = "(the demo: flockd without -config)"
	// formatFile marks a data folder (datadir.FormatFile).
	formatFile = "FORMAT"
)

// configName is the config file's name without its extension: flockd.yml
// gives flockd.
func configName(config string) string {
	base := filepath.Base(config)
	if name := strings.TrimSuffix(base, filepath.Ext(base)); name != "" {
		return name
	}
	return base
}

// defaultFolder is .flockd/NAME beside the config file, or .flockd/demo
// in the working folder without one.
func defaultFolder(config string) string {
	if config == "" {
		return filepath.Join(defaultDataDir, demoName)
	}
	return filepath.Join(filepath.Dir(config), defaultDataDir, configName(config))
}

// owner is what ownerFile holds for config.
func owner(config string) (string, error) {
	if config == "" {
		return demoOwner, nil
	}
	abs, err := filepath.Abs(config)
	if err != nil {
		return "", fmt.Errorf("config %s: %w", config, err)
	}
	return abs, nil
}

// isDataFolder reports whether dir holds a data folder (its FORMAT file).
func isDataFolder(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, formatFile))
	return err == nil
}

// legacyFolder returns .flockd itself when it holds a data folder,
// written before each configuration had its own, that records config as
// its owner (flockd -data .flockd recorded it): it is kept for that
// configuration. Otherwise a data folder there is refused: which
// configuration it belongs to is not recorded (or is another), and the
// wrong one would reconcile it away, so flockd says how to hand it over.
// Without one it returns "".
func legacyFolder(config string) (string, error) {
	legacy := filepath.Dir(defaultFolder(config))
	if !isDataFolder(legacy) {
		return "", nil
	}
	recorded, err := recordedOwner(legacy)
	if err != nil {
		return "", err
	}
	me, err := owner(config)
	if err != nil {
		return "", err
	}
	if recorded == me {
		return legacy, nil
	}
	whose := "which one it belongs to is not recorded"
	if recorded != "" {
		whose = "it belongs to " + ownerName(recorded)
	}
	dir := defaultFolder(config)
	return "", fmt.Errorf("data folder %s holds the world of an older flockd, which kept one folder for every configuration "+
		"beside it; each configuration now has its own (%s for %s), and %s. "+
		"If it is this one's, move it: mv %s %s.old && mkdir %s && mv %s.old %s. "+
		"Or keep using it as it is with -data %s",
		legacy, dir, describe(config), whose, legacy, legacy, legacy, legacy, dir, legacy)
}

// recordedOwner returns what dir's ownerFile records, "" without one.
func recordedOwner(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("data folder %s: %w", dir, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// ownerName names a recorded owner for a message.
func ownerName(recorded string) string {
	if recorded == demoOwner {
		return "the demo (flockd without -config)"
	}
	return "configuration " + recorded
}

// describe names config for a message.
func describe(config string) string {
	if config == "" {
		return "the demo"
	}
	return config
}

// checkOwner refuses dir when its record names another configuration
// than config whose file still exists (a moved or renamed config file
// takes its folder over). A folder without a record is anyone's.
func checkOwner(dir, config string) error {
	if !isDataFolder(dir) {
		return nil
	}
	recorded, err := recordedOwner(dir)
	if err != nil || recorded == "" {
		return err
	}
	me, err := owner(config)
	if err != nil || recorded == me {
		return err
	}
	if recorded != demoOwner {
		if _, err := os.Stat(recorded); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return fmt.Errorf("data folder %s belongs to %s, not to %s (its file %s says so): "+
		"pick another folder with -data DIR, or leave -data out for the folder of its own (%s); "+
		"to hand this folder to %s, delete %s",
		dir, ownerName(recorded), describe(config), ownerFile, defaultFolder(config), describe(config), filepath.Join(dir, ownerFile))
}

// claim records in dir that it belongs to config, once the configuration
// was reconciled with it.
func claim(dir, config string) error {
	me, err := owner(config)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ownerFile)
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == me {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(me+"\n"), 0o600); err != nil {
		return fmt.Errorf("data folder %s: record its configuration: %w", dir, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("data folder %s: record its configuration: %w", dir, err)
	}
	return nil
}
