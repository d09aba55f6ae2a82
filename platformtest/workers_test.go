package platformtest

import (
	"sync"
	"testing"
)

// eachAtOnce runs f for every item, workers at a time, and fails tb
// naming how many of what failed and the first error.
func eachAtOnce[T any](tb testing.TB, what string, items []T, workers int, f func(T) error) {
	tb.Helper()
	work := make(chan T)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []error
	for range workers {
		wg.Go(func() {
			for it := range work {
				if err := f(it); err != nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	if len(failed) > 0 {
		tb.Fatalf("%d of %d %s failed, the first: %v", len(failed), len(items), what, failed[0])
	}
}
