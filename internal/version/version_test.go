package version

import (
	"runtime/debug"
	"testing"
)

func TestStringStamped(t *testing.T) {
	if got := String("v1.2.0"); got != "v1.2.0" {
		t.Errorf("String(v1.2.0) = %q", got)
	}
}

func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install module@version", debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, "v1.3.0"},
		{"built from a clone", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.time", Value: "2026-11-28T17:00:00Z"},
			{Key: "vcs.modified", Value: "true"}}}, "devel 1a2b3c4d5e6f+dirty 2026-11-28T17:00:00Z"},
		{"a pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128170000-1a2b3c4d5e6f+dirty"}},
			"v0.0.0-20261128170000-1a2b3c4d5e6f+dirty"},
		{"nothing recorded", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Devel},
	} {
		if got := fromBuildInfo(&c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
