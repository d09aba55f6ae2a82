// This file holds the upgrade steps of the folder's format, oldest first:
// migrations[i] turns a folder of format i+1 into one of format i+2, and
// the format this program writes is one more than the last step's From.
// Format 1 is the first: a FORMAT file, flockd.lock, one bbolt file per
// keeping service (registry.db, …) whose every value carries its checksum
// (value.go), and a folder per service keeping blobs.
//
// Format 2 keeps table rows and file objects too: fleet.db (the data
// backends' rows, the key of secret columns), files.db (the file
// objects' records, the key that signs upload URLs, the data backend
// numbers of permanent URLs) and the blob folder files/. A flockd of
// format 1 would serve such a folder with empty tables and no objects, so
// it must refuse it: hence the new version. A folder of format 1 holds
// none of them, so the step from 1 changes nothing but the version.
//
// To change the layout: add a Step{From: N, What: "…", Run: …} here, with
// a test that upgrades a folder of format N written as the previous
// version wrote it.

package datadir

var migrations = []Step{
	{From: 1, What: "table rows (fleet.db) and file objects (files.db, files/) are kept", Run: func(string) error { return nil }},
}
