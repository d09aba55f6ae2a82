package gcpace

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// systemMemory is the memory this process may use: the cgroup v2 limit
// when there is one, else the machine's memory (/proc/meminfo).
func systemMemory() (uint64, bool) {
	total, ok := memTotal()
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64); err == nil && (!ok || limit < total) {
			return limit, true
		}
	}
	return total, ok
}

// memTotal reads MemTotal from /proc/meminfo, in bytes.
func memTotal() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !found {
			continue
		}
		f := strings.Fields(rest) // "16384000 kB"
		if len(f) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}
