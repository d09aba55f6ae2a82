package router

import (
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestAcceptEpisode: failed accepts are counted, the first of an episode
// logged at the default level; the episode ends, with its count logged,
// after acceptsToEnd accepts in a row (one accept between failures does
// not end it); a closing listener is no failure.
func TestAcceptEpisode(t *testing.T) {
	logs := &logSink{}
	rt := New(Config{Log: slog.New(slog.NewTextHandler(logs, nil))})
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	for range 10 {
		rt.acceptResumed() // between failures (one descriptor freed): the same episode
		rt.acceptFailed(emfile)
	}
	rt.acceptFailed(net.ErrClosed)
	if n := strings.Count(logs.String(), "level=WARN msg=\"cannot accept connections"); n != 1 {
		t.Errorf("%d warnings for one episode, want 1:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "too many open files") {
		t.Errorf("the warning does not say why:\n%s", logs)
	}
	if got := rt.met.acceptErrors.Value(); got != 10 {
		t.Errorf("accept errors = %d, want 10", got)
	}
	for range acceptsToEnd - 1 {
		rt.acceptResumed()
	}
	if strings.Contains(logs.String(), "accepting connections again") {
		t.Fatalf("the episode ended early:\n%s", logs)
	}
	rt.acceptResumed()
	if n := strings.Count(logs.String(), "msg=\"accepting connections again\" failed_accepts=10"); n != 1 {
		t.Errorf("the end of the episode is logged %d times, want once with its count:\n%s", n, logs)
	}
	rt.acceptFailed(emfile)
	if n := strings.Count(logs.String(), "level=WARN"); n != 2 {
		t.Errorf("a new episode makes %d warnings in all, want 2:\n%s", n, logs)
	}
}
