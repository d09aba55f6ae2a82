//go:build linux || darwin

package main

import "syscall"

// raiseFileLimit raises the soft RLIMIT_NOFILE to the hard limit and
// returns both; raised tells whether it changed. Where the system refuses
// the hard limit as a soft one (macOS caps it), the soft limit stays.
func raiseFileLimit() (soft, hard uint64, raised bool, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, false, err
	}
	if lim.Cur < lim.Max {
		want := lim
		want.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			lim, raised = want, true
		}
	}
	return lim.Cur, lim.Max, raised, nil
}
