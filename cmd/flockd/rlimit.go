// This file holds flockd's file limit: at start it raises its soft limit
// of open files (RLIMIT_NOFILE) to the hard one and says how many device
// sessions that allows, each session holding one socket.

package main

import "log/slog"

// fileReserve is how many files flockd keeps for itself beside the
// sessions: listeners, the data folder's files, PostgreSQL connections,
// spill files, the console's streams.
const fileReserve = 64

// logFileLimit raises the soft file limit to the hard one where the
// system allows it and logs the limit and the sessions it allows.
func logFileLimit(log *slog.Logger) {
	soft, hard, raised, err := raiseFileLimit() // rlimit_unix.go, rlimit_other.go
	switch {
	case err != nil:
		log.Warn("cannot read the limit of open files: the number of sessions flockd can hold is not known", "err", err)
	case soft == 0:
		// not known on this system
	default:
		log.Info("file limit", "soft", soft, "hard", hard, "raised", raised,
			"sessions", max(int64(soft)-fileReserve, 0), "note", "each session holds a socket; raise the hard limit (ulimit -Hn, LimitNOFILE=) for more")
	}
}
