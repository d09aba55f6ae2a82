package platformtest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// damageObjects are the file objects of the damage test's world, by key,
// with their sizes.
var damageObjects = []struct {
	key  string
	size int
}{{"o0", 5}, {"o1", 100}, {"o2", 4096}, {"o3", 70_000}, {"o4", 300_000}, {"o5", 1}}

// worldState returns what a platform serves of the damage test's world:
// every device (key, name, serial, credential key), the rows of table
// readings, and the SHA-256 of every object's content; unread are the
// objects whose read failed, with the error.
func worldState(p *Platform, realm string) (state string, unread map[string]error) {
	var b strings.Builder
	p.reg.Do(func(s *registry.State) {
		for _, d := range s.Devices() {
			fmt.Fprintf(&b, "device %d %s %s %s\n", d.Key, d.Name, d.Serial, d.CredKey)
		}
	})
	rows, err := p.fleet.TableRows(context.Background(), realm, "readings")
	raw, _ := json.Marshal(rows)
	fmt.Fprintf(&b, "rows %d %s %v\n", len(rows), raw, err)
	unread = map[string]error{}
	bucket := p.fileBucket(realm)
	for _, o := range damageObjects {
		data, ok, err := bucket.Content("default", o.key)
		if err != nil {
			unread[o.key] = err
			continue
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "object %s %v %x\n", o.key, ok, sum)
	}
	return b.String(), unread
}

// copyFolder copies the data folder src to dst (made anew), without its
// lock file.
func copyFolder(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		switch {
		case e.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		case rel == datadir.LockFile:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// boltKeys returns where every key of the last commit of the bbolt file
// f lies (offset, length), walking its tree as bbolt lays it out.
func boltKeys(f []byte) [][2]int {
	ne := binary.NativeEndian
	ps := int(ne.Uint32(f[16+8:]))
	meta := 0
	if ne.Uint64(f[ps+16+48:]) > ne.Uint64(f[16+48:]) {
		meta = ps
	}
	var keys [][2]int
	var walk func(at int)
	walk = func(at int) { // at: a page's offset in f
		flags, count := ne.Uint16(f[at+8:]), int(ne.Uint16(f[at+10:]))
		for i := range count {
			e := at + 16 + 16*i
			if flags == 0x01 { // branch
				keys = append(keys, [2]int{e + int(ne.Uint32(f[e:])), int(ne.Uint32(f[e+4:]))})
				walk(int(ne.Uint64(f[e+8:])) * ps)
				continue
			}
			k, ksize := e+int(ne.Uint32(f[e+4:])), int(ne.Uint32(f[e+8:]))
			keys = append(keys, [2]int{k, ksize})
			if ne.Uint32(f[e:])&1 != 0 { // a bucket
				v := k + ksize
				if root := int(ne.Uint64(f[v:])); root != 0 {
					walk(root * ps)
				} else {
					walk(v + 16)
				}
			}
		}
	}
	walk(int(ne.Uint64(f[meta+16+16:])) * ps)
	return keys
}

// damageTrial is one damage done to a copy of the folder.
type damageTrial struct {
	name   string
	file   string // what the damage touches, relative to the folder
	damage func(path string) error
}

// TestDataDirDamage damages a copy of a data folder holding an
// acknowledged world (devices, rows, objects) in every way issue 33 lists
// — for every .db: deleted, emptied, truncated, each meta page zeroed,
// bits flipped in the meta pages, in keys and anywhere in its pages, the
// file from an older copy; COMMITS deleted, zeroed or from an older copy;
// a bit flipped in each object's content — and
// checks that every trial ends with a refusal naming the file (the check
// and the start saying the same) or a start that serves exactly what was
// acknowledged (an object whose content was damaged fails its read,
// naming its file, and flockd check refuses the folder naming it): no
// panic, no silent loss. The trials are seeded and counted.
func TestDataDirDamage(t *testing.T) {
	root := t.TempDir()
	base, older := filepath.Join(root, "base"), filepath.Join(root, "older")
	w := openKeptWorld(t, base, "")
	realm := w.in.Realm()
	build := func(from, to int) {
		for i := from; i < to; i++ {
			w.p.AddDevice(fmt.Sprintf("dev-%02d", i))
			rows := make([]map[string]any, 25)
			for j := range rows {
				rows[j] = map[string]any{"tsp": worldtest.Ms(time.Duration(i*100+j) * time.Second), "temp": float64(i*100 + j), "label": fmt.Sprint(i, "/", j)}
			}
			if err := w.p.InsertRows(w.in, "readings", rows...); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range damageObjects[from/2 : to/2] {
			data := make([]byte, o.size)
			for i := range data {
				data[i] = byte(i*31 + o.size)
			}
			w.p.StoreFile(realm, "default", o.key, data, "")
		}
	}
	build(0, 6)
	w.p.Close()
	copyFolder(t, base, older)
	w = openKeptWorld(t, base, "")
	build(6, 12)
	want, unread := worldState(w.p, realm)
	if len(unread) > 0 || strings.Count(want, "device ") != 13 || !strings.Contains(want, "rows 300 ") {
		t.Fatalf("the world: %v\n%s", unread, want)
	}
	w.p.Close()

	rng := rand.New(rand.NewPCG(33, 4))
	var trials []damageTrial
	rewrite := func(path string, fn func([]byte) []byte) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, fn(b), 0o600)
	}
	flip := func(at int, bit uint) func(string) error {
		return func(path string) error {
			return rewrite(path, func(b []byte) []byte { b[at] ^= 1 << bit; return b })
		}
	}
	for _, file := range []string{"registry.db", "fleet.db", "files.db"} {
		f, err := os.ReadFile(filepath.Join(base, file))
		if err != nil {
			t.Fatal(err)
		}
		ps := int(binary.NativeEndian.Uint32(f[16+8:]))
		add := func(name string, damage func(string) error) {
			trials = append(trials, damageTrial{name: file + " " + name, file: file, damage: damage})
		}
		add("deleted", os.Remove)
		add("emptied", func(path string) error { return os.Truncate(path, 0) })
		add("truncated to half", func(path string) error { return os.Truncate(path, int64(len(f)/2/ps*ps)) })
		add("truncated to 3 pages", func(path string) error { return os.Truncate(path, int64(3*ps)) })
		for page := range 2 {
			add(fmt.Sprintf("meta page %d zeroed", page), func(path string) error {
				return rewrite(path, func(b []byte) []byte { clear(b[page*ps : (page+1)*ps]); return b })
			})
			for range 4 {
				at := page*ps + rng.IntN(80)
				bit := uint(rng.IntN(8))
				add(fmt.Sprintf("meta page %d byte %d bit %d", page, at-page*ps, bit), flip(at, bit))
			}
		}
		keys := boltKeys(f)
		for range 12 {
			k := keys[rng.IntN(len(keys))]
			if k[1] == 0 {
				continue
			}
			at, bit := k[0]+rng.IntN(k[1]), uint(rng.IntN(8))
			add(fmt.Sprintf("key byte %d bit %d", at, bit), flip(at, bit))
		}
		for range 12 {
			at, bit := 2*ps+rng.IntN(len(f)-2*ps), uint(rng.IntN(8))
			add(fmt.Sprintf("page byte %d bit %d", at, bit), flip(at, bit))
		}
		add("from an older copy", func(path string) error {
			b, err := os.ReadFile(filepath.Join(older, file))
			if err != nil {
				return err
			}
			return os.WriteFile(path, b, 0o600)
		})
	}
	commits := func(name string, damage func(string) error) {
		trials = append(trials, damageTrial{name: datadir.CommitsFile + " " + name, file: datadir.CommitsFile, damage: damage})
	}
	commits("deleted", os.Remove)
	commits("zeroed", func(path string) error { return rewrite(path, func(b []byte) []byte { clear(b); return b }) })
	commits("from an older copy", func(path string) error { // behind every file: a lower bound still
		b, err := os.ReadFile(filepath.Join(older, datadir.CommitsFile))
		if err != nil {
			return err
		}
		return os.WriteFile(path, b, 0o600)
	})
	blobs := blobFiles(t, base)
	if len(blobs) != len(damageObjects) {
		t.Fatalf("%d blobs", len(blobs))
	}
	for _, path := range blobs {
		rel, _ := filepath.Rel(base, path)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		at, bit := rng.IntN(int(fi.Size())), uint(rng.IntN(8))
		trials = append(trials, damageTrial{name: fmt.Sprintf("%s byte %d bit %d", rel, at, bit), file: rel, damage: flip(at, bit)})
	}

	dir := filepath.Join(root, "trial")
	counts := map[string]int{}
	for _, tr := range trials {
		copyFolder(t, base, dir)
		if err := tr.damage(filepath.Join(dir, tr.file)); err != nil {
			t.Fatal(err)
		}
		outcome := damageOutcome(t, tr, dir, realm, want)
		counts[outcome]++
	}
	t.Logf("%d damage trials (seeded): %d refused naming the file, %d served whole, %d served with the damaged object's reads refused; %d panics, %d silent losses, %d verdicts of the check and the start that differ",
		len(trials), counts["refused"], counts["served"], counts["served, object refused"], counts["panic"], counts["loss"], counts["disagree"])
	if counts["panic"]+counts["loss"]+counts["disagree"] > 0 {
		t.Errorf("%d panics, %d silent losses, %d disagreements", counts["panic"], counts["loss"], counts["disagree"])
	}
	if counts["refused"] < len(trials)/2 {
		t.Errorf("only %d of %d trials refused", counts["refused"], len(trials))
	}
}

// damageOutcome runs flockd check and a start on the damaged folder dir
// and says how the trial ended.
func damageOutcome(t *testing.T, tr damageTrial, dir, realm, want string) (outcome string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", tr.name, r)
			outcome = "panic"
		}
	}()
	_, checkErr := CheckDataDir(dir)
	p, err := Start(WithDataDir(dir), WithStartTime(worldtest.T0.Add(24*time.Hour)), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		if !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), dir+": "+tr.file) {
			t.Errorf("%s: the start's refusal does not name %s: %v", tr.name, tr.file, err)
			return "loss"
		}
		if checkErr == nil || checkErr.Error() != err.Error() {
			t.Errorf("%s: the start says %v, the check %v", tr.name, err, checkErr)
			return "disagree"
		}
		return "refused"
	}
	defer p.Close()
	got, unread := worldState(p, realm)
	blob := strings.HasPrefix(tr.file, "files"+string(filepath.Separator))
	switch {
	case !blob && checkErr != nil:
		t.Errorf("%s: the start served, the check refused: %v", tr.name, checkErr)
		return "disagree"
	case blob && (checkErr == nil || !errors.Is(checkErr, datadir.ErrDamaged) || !strings.Contains(checkErr.Error(), tr.file)):
		t.Errorf("%s: the check does not refuse the damaged content naming it: %v", tr.name, checkErr)
		return "loss"
	}
	if blob {
		if len(unread) != 1 {
			t.Errorf("%s: unread objects %v, want the damaged one", tr.name, unread)
			return "loss"
		}
		for key, err := range unread {
			if !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), tr.file) {
				t.Errorf("%s: the read of %s fails with %v", tr.name, key, err)
				return "loss"
			}
			want = strings.Join(slices.DeleteFunc(strings.SplitAfter(want, "\n"), func(l string) bool {
				return strings.HasPrefix(l, "object "+key+" ")
			}), "")
		}
	}
	if got != want || (!blob && len(unread) > 0) {
		t.Errorf("%s: served something else than acknowledged (unread %v):\n%s", tr.name, unread, diffLines(want, got))
		return "loss"
	}
	if blob {
		return "served, object refused"
	}
	return "served"
}

// diffLines returns the lines of want missing from got and those of got
// not in want.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l[:min(len(l), 200)])
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l[:min(len(l), 200)])
		}
	}
	return strings.Join(out, "\n")
}
