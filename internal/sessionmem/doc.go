// Package sessionmem holds the benchmarks and checks that pin the memory
// an idle session costs: flockd's per authenticated device session with
// one subscription and one registration, and an SDK client's per
// connected device when thousands share one process (issue 37). Each side
// is measured in a process of its own (the test binary started again,
// internal/selfexec), before and after the sessions join; see
// memory_test.go and docs/performance.md ("Memory per session").
package sessionmem
