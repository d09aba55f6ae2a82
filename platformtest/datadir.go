// This file holds the platform's data folder (WithDataDir): where the
// world is kept across restarts, how the stores of the services are
// opened in it (openStores), CheckDataDir, which checks a folder without
// serving it (flockd check), and what the console shows of it. Without a
// folder every store is in memory. It serves no URI.

package platformtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/console"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
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
// The data backends' rows and error-logs (fleet.db, with the key of
// secret columns) and the file objects (records in files.db, content in
// files/, with the key of upload URLs and the sad_keys of permanent URLs)
// are kept in the folder too, on disk rather than in memory; each append,
// bulk append and put is on disk before it is acknowledged. On a full
// disk writes are refused (storage_full; files INTERNAL) and reads go on.
// The spill folder defaults to the folder's spill/. By default a platform
// keeps everything in memory, so tests stay fast and isolated.
func WithDataDir(dir string) Option { return func(s *settings) { s.dataDir = dir } }

// DataDir returns the absolute path of the platform's data folder, ""
// when it keeps everything in memory.
func (p *Platform) DataDir() string {
	if p.data == nil {
		return ""
	}
	return p.data.Path()
}

// openStores opens the data folder, when there is one, the registry kept
// in it (or in memory), and what the services keep there (openKept).
func (p *Platform) openStores() error {
	cfg := registry.Config{Clock: p.clock, Log: p.log, Build: p.set.build, StrictAuth: p.set.strict}
	if p.set.dataDir == "" {
		p.reg = registry.New(cfg)
		return p.openObjects() // files.go
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
	if p.kept.fleet, err = d.DB(fleetFile); err != nil {
		_ = d.Close()
		return err
	}
	if p.set.spillDir == "" { // the spill folder goes in the data folder too
		if p.set.spillDir, err = d.Folder(spillFolder); err != nil {
			_ = d.Close()
			return err
		}
	}
	p.data = d
	if err := p.openObjects(); err != nil { // files.go
		p.data = nil
		_ = d.Close()
		return err
	}
	p.log.Info("data folder", "path", d.Path(), "format", d.Format())
	return nil
}

// kept is what the services keep in the data folder besides the objects
// and keys (files.go): the data backends' rows (fleet.db). Zero without a
// folder.
type kept struct {
	fleet *datadir.DB
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
// kept: the folder and its size, the rows and objects the stores count,
// and the in-memory store's bound.
func (p *Platform) storage() console.Storage {
	var st console.Storage
	var errs []error
	if p.data != nil {
		st.Folder = p.data.Path()
		size, err := p.data.Size()
		st.Bytes = size
		errs = append(errs, err)
	}
	rows, _, err := p.fleet.Rows(context.Background())
	st.Rows = rows
	errs = append(errs, err)
	objects, err := p.files.Objects()
	st.Objects = objects
	errs = append(errs, err)
	if p.data == nil && p.set.fleetStore == nil {
		st.RowLimit, st.Full = p.set.memoryRows, p.full.limit.Load() > 0 && rows >= p.set.memoryRows
		if p.full.usage != nil {
			var refusing bool
			st.ByteLimit = p.set.memoryBytes
			st.MemoryBytes, refusing = p.full.usage()
			st.Full = st.Full || p.full.bytes.Load() > 0 && refusing
		}
	}
	if err := errors.Join(errs...); err != nil {
		st.Err = err.Error()
	}
	return st
}

// DataDirReport is what CheckDataDir found in a data folder.
type DataDirReport struct {
	Dir     string // absolute path
	Format  int    // the folder's format version
	Current int    // the format this program writes (an older folder is upgraded at the next start)
	Files   []DataFile
	// What the registry keeps.
	Projects, Devices, Apps, Installations, Users int
	// Rows are the table rows kept (error-logs included); Objects the
	// file objects, each with its content in the blob folder, of
	// ObjectBytes bytes together.
	Rows, Objects, ObjectBytes int64
	// LeftBlobs are blobs no record names and half-written files, which
	// a kill left and the next start removes.
	LeftBlobs int
	// HashTime is what comparing every object's content with the SHA-256
	// of its record (ObjectBytes bytes read) took.
	HashTime time.Duration
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
// references, every file object's content against its record: its size,
// and, unlike a start, its SHA-256, reading every object whole). It fails
// as Start would, naming the file and what is wrong. It takes the folder's lock while it checks, so it refuses a
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
	reg.View(func(s *registry.State) {
		rep.Projects, rep.Devices, rep.Apps, rep.Users = len(s.Projects()), len(s.Devices()), len(s.Apps()), len(s.Users())
		for _, dev := range s.Devices() {
			rep.Installations += len(s.DeviceInstalls(dev))
		}
	})
	if err := checkKept(d, rep); err != nil {
		return nil, err
	}
	if _, err := d.Folder(spillFolder); err != nil { // as the start refuses it
		return nil, err
	}
	return rep, nil
}

// spillFolder is the file service's spill folder in a data folder.
const spillFolder = "spill"

// checkKept counts the rows of fleet.db and checks the file objects'
// blobs against files.db, in a folder opened read-only; a file that is
// not there holds nothing.
func checkKept(d *datadir.Dir, rep *DataDirReport) error {
	fleet, err := d.DB(fleetFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if rep.Rows, err = folderRows(fleet).CountRows(context.Background()); err != nil {
			return err
		}
	}
	br, err := folder.CheckObjects(d)
	rep.Objects, rep.ObjectBytes, rep.LeftBlobs, rep.HashTime = br.Objects, br.Bytes, br.Orphans+br.Temps, br.HashTime
	return err
}
