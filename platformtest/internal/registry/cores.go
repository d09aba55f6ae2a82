// This file holds the one way the registry spreads a large piece of work
// over the cores: encoding a change (persist_encode.go) and decoding a
// kept world (load.go).

package registry

import (
	"runtime"
	"sync"
)

// onEveryCoreFrom is the fewest items worked on every core.
const onEveryCoreFrom = 4096

// onEveryCore runs run over the items [0, n): in one part on the caller's
// goroutine when they are fewer than onEveryCoreFrom, else in one part per
// core, each on its own goroutine. It returns the error of the first part
// that failed, in the items' order.
func onEveryCore(n int, run func(from, to int) error) error {
	if n < onEveryCoreFrom {
		return run(0, n)
	}
	parts := runtime.GOMAXPROCS(0)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { errs[p] = run(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
