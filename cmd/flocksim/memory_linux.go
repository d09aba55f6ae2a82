// This file reads a process's resident memory on Linux.

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// rssOf returns the resident memory (VmRSS) of process pid ("self" for
// this one) in bytes.
func rssOf(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest) // "123456 kB"
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("/proc/%s/status: VmRSS: %q", pid, rest)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%s/status: VmRSS: %w", pid, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("/proc/%s/status: no VmRSS", pid)
}
