package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// TestSecondOpenRefused: while a store holds its prefix, a second store on
// the same database and prefix is refused naming the store, and keeps
// nothing open; once the first closes, the prefix opens again with what
// the first kept.
func TestSecondOpenRefused(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	open := keptStore(t, url)
	first := open(t)
	prefix := first.(*pgStore).prefix
	second, err := New(context.Background(), Config{URL: url, Prefix: prefix, MaxConns: 2})
	if err == nil {
		_ = second.Close()
		t.Fatal("a second store on the same prefix opened while the first holds it")
	}
	if !strings.Contains(err.Error(), prefix+"ironflock") || !strings.Contains(err.Error(), "in use") {
		t.Errorf("the refusal does not name the store and why: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t)
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}
