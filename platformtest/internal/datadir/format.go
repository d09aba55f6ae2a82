// This file holds the format version of a folder: the FORMAT file, its
// reading and writing, and the upgrade of a folder of an older format.
//
// The layout of the folder and of the files in it has one version number.
// A change that an older flockd could not read (a bucket renamed, a record
// encoded differently) raises it and adds a Step to migrations.go that
// turns a folder of the previous version into one of the new. A folder of
// an older version is upgraded in place at Open: first the folder is
// copied beside itself (DIR.format<N>-copy), then the steps run in order,
// FORMAT recording the version reached after each one, so that an upgrade
// cut short by a kill resumes from there. A step must therefore leave the
// folder readable by the next run of the same step. A folder of a newer
// version is refused.
//
// Changes that older files read without help (a record field added) need
// no new version.

package datadir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FormatFile is the name of the format version file in a data folder.
const FormatFile = "FORMAT"

// formatPrefix starts the only line of FORMAT; the version follows.
const formatPrefix = "flockd data folder format "

// Step turns a folder of format From into one of format From+1.
type Step struct {
	From int
	What string                 // what it changes, for the log
	Run  func(dir string) error // dir is the folder's path; Open holds it
}

// format is a version with the steps that lead to it from older ones.
type format struct {
	version int
	steps   []Step // steps[i].From == i+1
}

// current is the format this program writes (migrations.go).
func current() format { return format{version: 1 + len(migrations), steps: migrations} }

// CurrentFormat returns the format version this program writes.
func CurrentFormat() int { return current().version }

// readFormat reads dir's format version; present is false when dir has no
// FORMAT file.
func readFormat(dir string) (version int, present bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, FormatFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("data folder %s: %w", dir, err)
	}
	text, ok := strings.CutPrefix(strings.TrimSuffix(string(b), "\n"), formatPrefix)
	v, err := strconv.Atoi(text)
	if !ok || err != nil || v < 1 {
		return 0, true, damaged(dir, FormatFile, "want one line %q followed by a version, found %.60q", formatPrefix, b)
	}
	return v, true, nil
}

// writeFormat records dir's format version, atomically and durably.
func writeFormat(dir string, version int) error {
	if err := writeFileSync(dir, FormatFile, []byte(formatPrefix+strconv.Itoa(version)+"\n")); err != nil {
		return fmt.Errorf("data folder %s: write %s: %w", dir, FormatFile, err)
	}
	return nil
}

// writeFileSync writes name in dir through a synced temporary file renamed
// over it, then syncs dir, so that a kill leaves the old or the new file.
func writeFileSync(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes the entries of dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// upgrade brings dir from version from to f.version: it copies the folder
// beside itself, then runs the steps. It returns the copy's path.
func upgrade(dir string, from int, f format, log *slog.Logger) (string, error) {
	backup, err := copyAside(dir, from)
	if err != nil {
		return "", fmt.Errorf("data folder %s: copy before the upgrade from format %d to %d: %w", dir, from, f.version, err)
	}
	log.Info("data folder copied before its upgrade", "folder", dir, "copy", backup, "from", from, "to", f.version)
	for v := from; v < f.version; v++ {
		st := f.steps[v-1]
		if st.From != v {
			return backup, fmt.Errorf("data folder %s: no upgrade step from format %d (a step from %d stands in its place)", dir, v, st.From)
		}
		log.Info("data folder upgrade step", "folder", dir, "from", v, "to", v+1, "what", st.What)
		if err := st.Run(dir); err != nil {
			return backup, fmt.Errorf("data folder %s: upgrade from format %d to %d (%s): %w; the folder as it was before the upgrade is at %s",
				dir, v, v+1, st.What, err, backup)
		}
		if err := writeFormat(dir, v+1); err != nil {
			return backup, err
		}
	}
	log.Info("data folder upgraded", "folder", dir, "from", from, "to", f.version, "copy", backup)
	return backup, nil
}

// copyAside copies dir (without its lock file) to a new folder beside it,
// DIR.format<N>-copy (or -copy2, -copy3…, when taken), synced.
func copyAside(dir string, version int) (string, error) {
	base := fmt.Sprintf("%s.format%d-copy", filepath.Clean(dir), version)
	dst := base
	for n := 2; ; n++ {
		err := os.Mkdir(dst, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		dst = base + strconv.Itoa(n)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." || rel == LockFile {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(target, 0o700)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil // sockets, links: not the folder's
	})
	if err != nil {
		return dst, err
	}
	return dst, filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return syncDir(path)
	})
}

// copyFile copies a regular file and syncs the copy.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, cerr := io.Copy(out, in)
	return errors.Join(cerr, out.Sync(), out.Close())
}
