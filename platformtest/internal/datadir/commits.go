// This file holds COMMITS, the folder's record of the last commit of each
// of its bbolt files, which lets Open refuse a folder whose files are not
// the state of their last acknowledged commit: a file deleted or emptied
// (bbolt would make a new, empty one), a file put back from an older copy,
// a file whose newest meta page was lost (bbolt falls back to the older
// one, one commit back). Each file's commit id is bbolt's transaction id,
// kept in its meta page and raised by every commit.
//
// The order of writes makes the record a lower bound of what every file
// holds, whatever a kill or a power cut leaves: a file's commit is synced
// before Commit returns, and only then is its id written to COMMITS. So a
// file never holds less than COMMITS says unless it lost a commit, and a
// kill between the commits of two files (or between a commit and its
// record) leaves each file at or past its recorded commit: nothing to
// refuse. COMMITS is not synced at each commit (that would cost a sync per
// commit): the kernel keeps it across a kill; after a power cut it may lag
// (a lower bound still), and it is synced when the folder closes.
//
// The file holds two slots of slotSize bytes written in turn, each text
// with a sequence number and a CRC-32C, so that a write cut short by a
// power cut leaves the other slot whole; Open takes the whole slot of the
// higher sequence:
//
//	flockd data folder commits 42
//	files.db 17
//	fleet.db 1302
//	registry.db 88
//	crc32c 1a2b3c4d
//
// A folder written before COMMITS existed gets one at its first start,
// from its files as they are. COMMITS is written before any file is, so a
// folder without it whose files hold stamped buckets (stamp.go: written
// by a flockd that keeps COMMITS) lost it, and is refused.

package datadir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// CommitsFile is the name of the record of each file's last commit.
const CommitsFile = "COMMITS"

// commitsPrefix starts a slot of COMMITS; its sequence number follows.
const commitsPrefix = "flockd data folder commits "

// slotSize is the size of each of COMMITS's two slots.
const slotSize = 2048

// commits is the folder's COMMITS, open for writing.
type commits struct {
	dir string
	log *slog.Logger

	mu     sync.Mutex
	f      *os.File
	seq    uint64
	txids  map[string]uint64
	failed bool   // a write failed (logged once): the record lags, a lower bound still
	slot   []byte // the buffer record encodes each slot into
}

// encodeSlot returns a slot holding seq and txids.
func encodeSlot(seq uint64, txids map[string]uint64) ([]byte, error) {
	return appendSlot(make([]byte, 0, slotSize), seq, txids)
}

// appendSlot appends a slot holding seq and txids to b (a commit writes
// one into the same buffer each time):
// the prefix and seq, a line "name txid" per file in name order, the
// CRC-32C of all that in eight hex digits, zeros up to slotSize.
func appendSlot(b []byte, seq uint64, txids map[string]uint64) ([]byte, error) {
	start := len(b)
	b = append(b, commitsPrefix...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '\n')
	var room [8]string
	names := room[:0]
	for name := range txids {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		b = append(b, name...)
		b = append(b, ' ')
		b = strconv.AppendUint(b, txids[name], 10)
		b = append(b, '\n')
	}
	sum := crc32.Checksum(b[start:], castagnoli)
	b = append(b, "crc32c "...)
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, "0123456789abcdef"[sum>>shift&0xf])
	}
	b = append(b, '\n')
	if n := len(b) - start; n > slotSize {
		return nil, fmt.Errorf("%s: %d files do not fit in a slot of %d bytes", CommitsFile, len(txids), slotSize)
	}
	return append(b, make([]byte, slotSize-(len(b)-start))...), nil
}

// decodeSlot reads a slot; ok is false when it is not whole.
func decodeSlot(slot []byte) (seq uint64, txids map[string]uint64, ok bool) {
	text := string(bytes.TrimRight(slot, "\x00"))
	body, sumLine, found := strings.Cut(text, "crc32c ")
	if !found || len(sumLine) != 9 || sumLine[8] != '\n' {
		return 0, nil, false
	}
	sum, err := strconv.ParseUint(sumLine[:8], 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum([]byte(body), castagnoli) {
		return 0, nil, false
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	if !sc.Scan() {
		return 0, nil, false
	}
	head, ok := strings.CutPrefix(sc.Text(), commitsPrefix)
	if seq, err = strconv.ParseUint(head, 10, 64); !ok || err != nil {
		return 0, nil, false
	}
	txids = map[string]uint64{}
	for sc.Scan() {
		name, id, found := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseUint(id, 10, 64)
		if !found || err != nil || !strings.HasSuffix(name, dbSuffix) {
			return 0, nil, false
		}
		txids[name] = n
	}
	return seq, txids, true
}

// readCommits reads dir's COMMITS; present is false when there is none.
func readCommits(dir string) (seq uint64, txids map[string]uint64, present bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, CommitsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("data folder %s: %w", dir, err)
	}
	found := false
	for i := 0; i+slotSize <= len(b); i += slotSize {
		if s, t, ok := decodeSlot(b[i : i+slotSize]); ok && (!found || s > seq) {
			seq, txids, found = s, t, true
		}
	}
	if !found {
		return 0, nil, true, damaged(dir, CommitsFile, "neither of its two slots is whole (%d bytes)", len(b))
	}
	return seq, txids, true, nil
}

// writeCommits writes a new COMMITS holding txids in both slots, synced.
func writeCommits(dir string, seq uint64, txids map[string]uint64) error {
	slot, err := encodeSlot(seq, txids)
	if err != nil {
		return err
	}
	if err := writeFileSync(dir, CommitsFile, append(slot, slot...)); err != nil {
		return fmt.Errorf("data folder %s: write %s: %w", dir, CommitsFile, err)
	}
	return nil
}

// openCommits opens dir's COMMITS, which holds seq and txids, for
// writing.
func openCommits(dir string, seq uint64, txids map[string]uint64, log *slog.Logger) (*commits, error) {
	f, err := os.OpenFile(filepath.Join(dir, CommitsFile), os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	return &commits{dir: dir, log: log, f: f, seq: seq, txids: txids}, nil
}

// record notes that file name's commit txid is synced.
func (c *commits) record(name string, txid uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil || txid <= c.txids[name] {
		return
	}
	c.txids[name] = txid
	c.seq++
	slot, err := appendSlot(c.slot[:0], c.seq, c.txids)
	if err == nil {
		c.slot = slot
		_, err = c.f.WriteAt(slot, int64(c.seq%2)*slotSize)
	}
	if err != nil && !c.failed {
		c.failed = true
		c.log.Error("data folder: the record of the last commits is not written; a file that loses a commit later may go unseen",
			"folder", c.dir, "file", CommitsFile, "err", err)
	}
}

// close syncs and closes COMMITS.
func (c *commits) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := errors.Join(c.f.Sync(), c.f.Close())
	c.f = nil
	return err
}

// checkCommits compares the files the check found with COMMITS: every
// file COMMITS names must be there and hold at least its recorded commit.
func checkCommits(dir string, files []FileReport, txids map[string]uint64) error {
	held := map[string]FileReport{}
	for _, f := range files {
		held[f.Name] = f
	}
	names := make([]string, 0, len(txids))
	for name := range txids {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		want := txids[name]
		f, ok := held[name]
		switch {
		case want == 0:
		case !ok:
			return damaged(dir, name, "missing: its last acknowledged commit is commit %d (%s)", want, CommitsFile)
		case f.Bytes == 0:
			return damaged(dir, name, "empty: its last acknowledged commit is commit %d (%s)", want, CommitsFile)
		case f.txid < want:
			return damaged(dir, name, "holds commit %d, older than its last acknowledged commit %d (%s): a copy of an older state, or a file that lost its newest meta page",
				f.txid, want, CommitsFile)
		}
	}
	return nil
}
