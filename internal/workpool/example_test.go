package workpool_test

import (
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/workpool"
)

// A server hands each request's work to the pool instead of a goroutine
// of its own: the requests that come one after the other run on the
// worker the first started.
func ExamplePool_Do() {
	p := workpool.New(10 * time.Second)
	defer p.Close()
	sum := 0
	for i := 1; i <= 3; i++ {
		p.Do(func() { sum += i })
	}
	fmt.Println(sum)
	// Output: 6
}
