// This file holds the platform's data folder (WithDataDir): where the
// world is kept across restarts, how the stores of the services are
// opened in it (openStores), CheckDataDir, which checks a folder without
// serving it (flockd check), and what the console shows of it. Without a
// folder every store is in memory. It serves no URI.

package platformtest

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/console"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// WithDataDir keeps the platform's world in the data folder dir, created
// when it does not exist, so that a platform started again on the same
// folder has the same projects, devices, apps, installations, users,
// grants and everything generated for them (serial numbers, credential
// keys and epochs, tokens, keys): device programs reconnect with the
// credentials they have. Every change is on disk before the call that
// made it returns. The folder is held by one platform at a time (Start
// fails with "DIR is in use by flockd pid N"); a folder of a newer format
// or with a damaged file is refused, one of an older format is copied
// beside itself and upgraded (docs/flockd.md, "The data folder").
//
// Rows and file objects are kept in memory for now: a restart starts
// them anew. By default a platform keeps everything in memory, so tests
// stay fast and isolated.
func WithDataDir(dir string) Option { return func(s *settings) { s.dataDir = dir } }

// DataDir returns the absolute path of the platform's data folder, ""
// when it keeps everything in memory.
func (p *Platform) DataDir() string {
	if p.data == nil {
		return ""
	}
	return p.data.Path()
}

// openStores opens the data folder, when there is one, and the registry
// kept in it (or in memory). A service that keeps data in the folder gets
// its bbolt file with p.data.DB(name) and its blob folder with
// p.data.Folder(name) here.
func (p *Platform) openStores() error {
	cfg := registry.Config{Clock: p.clock, Log: p.log, Build: p.set.build, StrictAuth: p.set.strict}
	if p.set.dataDir == "" {
		p.reg = registry.New(cfg)
		return nil
	}
	d, err := datadir.Open(p.set.dataDir, datadir.WithLogger(p.log))
	if err != nil {
		return err
	}
	store, err := registry.OpenStore(d)
	if err == nil {
		p.reg, err = registry.Open(cfg, store)
	}
	if err != nil {
		_ = d.Close()
		return keptError(d.Path(), err)
	}
	p.data = d
	p.log.Info("data folder", "path", d.Path(), "format", d.Format())
	return nil
}

// keptError makes an error of what is kept in a folder name the folder
// and say it is damaged.
func keptError(dir string, err error) error {
	if errors.Is(err, datadir.ErrDamaged) || errors.Is(err, datadir.ErrInUse) {
		return err
	}
	return fmt.Errorf("%w: %s: %s.db: %v; it is neither reset nor served", datadir.ErrDamaged, dir, registry.StoreFile, err)
}

// closeStores closes the data folder, waiting for the writes in flight.
func (p *Platform) closeStores() {
	if p.data == nil {
		return
	}
	if err := p.data.Close(); err != nil {
		p.log.Error("data folder not closed cleanly", "path", p.data.Path(), "err", err)
	}
}

// storage is what the console's overview shows of where the world is
// kept.
func (p *Platform) storage() console.Storage {
	var st console.Storage
	if p.data != nil {
		st.Folder = p.data.Path()
		size, err := p.data.Size()
		st.Bytes = size
		if err != nil {
			st.Err = err.Error()
		}
	}
	st.Rows, st.Objects = p.keptCounts()
	return st
}

// keptCounts returns how many table rows (error-logs included) and file
// objects the services keep, over every realm. It asks the services what
// they expose today (the extent of each table, the usage of each bucket);
// a service whose store counts for itself (a data folder's) answers here
// instead.
func (p *Platform) keptCounts() (rows, objects int64) {
	var realms []string
	p.reg.Do(func(s *registry.State) {
		for _, ri := range s.Realms() {
			realms = append(realms, ri.Name)
		}
	})
	for _, name := range realms {
		_, tpl, err := p.realmDataTemplate(name)
		if err != nil {
			continue // gone meanwhile
		}
		tables := []string{template.ErrorLogsName}
		if tpl != nil {
			for _, t := range tpl.Tables {
				tables = append(tables, t.Name)
			}
		}
		for _, t := range tables {
			if ext, err := p.fleet.Extent(name, t); err == nil {
				rows += int64(ext.Rows)
			}
		}
		if b, err := p.files.Bucket(name); err == nil {
			objects += int64(b.Usage().Objects)
		}
	}
	return rows, objects
}

// DataDirReport is what CheckDataDir found in a data folder.
type DataDirReport struct {
	Dir     string // absolute path
	Format  int    // the folder's format version
	Current int    // the format this program writes (an older folder is upgraded at the next start)
	Files   []DataFile
	// What the registry keeps.
	Projects, Devices, Apps, Installations, Users int
}

// DataFile is one checked file of a data folder.
type DataFile struct {
	Name   string
	Bytes  int64
	Values int // stored values, each checked against its checksum
}

// CheckDataDir checks the data folder dir without serving it or changing
// anything in it: the same checks as a start (the lock, the format
// version, every file's pages and values, the registry's records and their
// references). It fails as Start would, naming the file and what is
// wrong. It takes the folder's lock while it checks, so it refuses a
// folder a running platform holds.
func CheckDataDir(dir string) (*DataDirReport, error) {
	d, err := datadir.Open(dir, datadir.ReadOnly())
	if err != nil {
		return nil, err
	}
	defer d.Close()
	rep := &DataDirReport{Dir: d.Path(), Format: d.Format(), Current: datadir.CurrentFormat()}
	for _, f := range d.Files() {
		rep.Files = append(rep.Files, DataFile{Name: f.Name, Bytes: f.Bytes, Values: f.Values})
	}
	store, err := registry.OpenStore(d)
	if err != nil {
		return nil, keptError(d.Path(), err)
	}
	reg, err := registry.Open(registry.Config{Clock: newClock(time.Time{}), Log: slog.New(slog.DiscardHandler)}, store)
	if err != nil {
		return nil, keptError(d.Path(), err)
	}
	reg.Do(func(s *registry.State) {
		rep.Projects, rep.Devices, rep.Apps, rep.Users = len(s.Projects()), len(s.Devices()), len(s.Apps()), len(s.Users())
		for _, dev := range s.Devices() {
			rep.Installations += len(s.DeviceInstalls(dev))
		}
	})
	return rep, nil
}
