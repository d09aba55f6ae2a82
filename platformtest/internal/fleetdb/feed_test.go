package fleetdb

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
)

// TestFeedOptions: private tables, transforms and error-logs are not
// delivered to cross-app readers.
func TestFeedOptions(t *testing.T) {
	if diff := cmp.Diff(wamp.Dict{"exclude_me": false, "exclude_authrole": wamp.List{"app_reader"}}, feedOptions(true)); diff != "" {
		t.Errorf("private (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wamp.Dict{"exclude_me": false}, feedOptions(false)); diff != "" {
		t.Errorf("shared (-want +got):\n%s", diff)
	}
	reader := &wamp.Invocation{Details: wamp.Dict{"caller_authrole": "app_reader"}}
	app := &wamp.Invocation{Details: wamp.Dict{"caller_authrole": "app"}}
	if !denied(reader, true) || denied(reader, false) || denied(app, true) {
		t.Error("denied: app_reader may read shared tables only")
	}
}
