// Package version names the version of flockd and flockgen for their
// -version flag: the one the release build stamps into the command's
// main.version (scripts/release: -ldflags "-X main.version=v1.2.0"), or
// else what the Go toolchain recorded in the binary.
package version

import (
	"runtime/debug"
	"strings"
)

// Devel is main.version when no release build stamped it.
const Devel = "devel"

// String returns stamped unless it is empty or Devel; otherwise the
// module's version from the binary's build information (go install
// module@version records it, and since Go 1.24 go build in a clone a
// pseudo-version of its commit), or Devel with the VCS revision and time
// the toolchain recorded ("devel 1a2b3c4d5e6f 2026-11-28T17:00:00Z",
// "+dirty" when the tree had changes), or Devel alone.
func String(stamped string) string {
	if stamped != "" && stamped != Devel {
		return stamped
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return fromBuildInfo(info)
}

// fromBuildInfo is String's reading of info.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return Devel
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return strings.TrimSpace(Devel + " " + rev + dirty + " " + at)
}
