// This file holds the Registry, its State and the helpers every entity
// uses: key allocation, name checks, random serials and keys.

package registry

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Registry guards the State of one platform and keeps it in its Store
// (persist.go).
type Registry struct {
	mu     sync.RWMutex // held shared by View, exclusively by everything else
	st     State
	cfg    Config
	store  Store
	rounds rounds // the changes of Do and Update waiting for a round (rounds.go)
	// realmsVer counts the kept or undone changes of the realms (persist.go).
	realmsVer atomic.Uint64
}

// Config configures a Registry.
type Config struct {
	Clock realm.Clock
	Log   *slog.Logger
	// Build is how long a release build takes in platform time.
	Build time.Duration
	// StrictAuth refuses the legacy credential (serial, serial).
	StrictAuth bool
}

// New returns an empty registry kept in a new MemoryStore.
func New(cfg Config) *Registry {
	return &Registry{st: newState(cfg), cfg: cfg, store: NewMemoryStore()}
}

// newState returns an empty state.
func newState(cfg Config) State {
	return State{
		clock:    cfg.Clock,
		log:      cfg.Log,
		build:    cfg.Build,
		strict:   cfg.StrictAuth,
		projects: map[int]*Project{},
		devices:  map[int]*Device{},
		bySerial: map[string]*Device{},
		byName:   map[deviceName]*Device{},
		apps:     map[int]*App{},
		installs: map[instKey]*Installation{},
		byDevice: map[int][]*Installation{},
		byRealm:  map[string]map[*Installation]struct{}{},
		realms:   map[string]realm.Info{},
		groups:   map[int]*Group{},
		users:    map[string]*User{},
		releases: map[int]*Release{},
		grants:   map[grantKey]bool{},
		next:     map[string]int{},
		dirty:    map[ref]struct{}{},
	}
}

// State is the provisioned world. Its methods and the fields of the
// entities it hands out may only be used inside Registry.Do.
type State struct {
	clock  realm.Clock
	log    *slog.Logger
	build  time.Duration
	strict bool // the legacy credential is refused

	projects map[int]*Project
	devices  map[int]*Device
	bySerial map[string]*Device     // the devices by serial (devices.go)
	byName   map[deviceName]*Device // the devices by project and name (devices.go)
	apps     map[int]*App
	installs map[instKey]*Installation
	byDevice map[int][]*Installation               // the installations by device key (index.go)
	byRealm  map[string]map[*Installation]struct{} // the installations by realm (index.go)
	realms   map[string]realm.Info
	groups   map[int]*Group
	users    map[string]*User
	releases map[int]*Release
	grants   map[grantKey]bool // grants.go; true: seeded
	next     map[string]int    // next key to try per kind
	dirty    map[ref]struct{}  // entities changed since the last save (persist.go)
	lines    int               // entity lines logged by the current call (logs.go)
	unlogged map[string]int    // entity lines counted rather than logged, by message
}

// Now returns the platform time.
func (s *State) Now() time.Time { return s.clock.Now() }

// Spec carries the choices of one Add call: a wanted key, serial or
// project instead of the defaults.
type Spec struct {
	Key       int
	KeySet    bool
	Serial    string
	SerialSet bool
	Project   *Project
}

// KeySpec returns a Spec asking for key, or the next free key when key is 0.
func KeySpec(key int) Spec {
	if key == 0 {
		return Spec{}
	}
	return Spec{Key: key, KeySet: true}
}

// allocKey returns the wanted key if free, or the next free one.
func (s *State) allocKey(kind string, spec Spec, used func(int) bool) (int, error) {
	if spec.KeySet {
		if spec.Key <= 0 {
			return 0, fmt.Errorf("%s key %d: keys are positive", kind, spec.Key)
		}
		if used(spec.Key) {
			return 0, fmt.Errorf("%s key %d is taken", kind, spec.Key)
		}
		return spec.Key, nil
	}
	k := max(s.next[kind], 1)
	for used(k) {
		k++
	}
	s.next[kind] = k + 1
	s.touch(KindCounter, kind)
	return k, nil
}

// CheckName checks a display name: not empty, no surrounding spaces, at
// most max bytes.
func CheckName(kind, name string, max int) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%s name is empty", kind)
	}
	if name != strings.TrimSpace(name) || len(name) > max {
		return fmt.Errorf("%s name %q: no surrounding spaces, at most %d bytes", kind, name, max)
	}
	return nil
}

// ParseStage reads a stage in any case, with surrounding spaces.
func ParseStage(v string) (string, error) {
	switch st := strings.ToUpper(strings.TrimSpace(v)); st {
	case wire.StageDev, wire.StageProd:
		return st, nil
	default:
		return "", fmt.Errorf("stage %q: want DEV or PROD", v)
	}
}

// Stages are the two stages in order.
var Stages = []string{wire.StageDev, wire.StageProd}

// NewUUID returns a random RFC 4122 version 4 UUID in its text form.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// RandomHex returns n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
