// This file holds the upgrade steps of the folder's format, oldest first:
// migrations[i] turns a folder of format i+1 into one of format i+2, and
// the format this program writes is one more than the last step's From.
// Format 1 is the first: a FORMAT file, flockd.lock, one bbolt file per
// keeping service (registry.db, …) whose every value carries its checksum
// (value.go), and a folder per service keeping blobs.
//
// To change the layout: add a Step{From: N, What: "…", Run: …} here, with
// a test that upgrades a folder of format N written as the previous
// version wrote it.

package datadir

var migrations = []Step{}
