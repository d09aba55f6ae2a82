package gcpace_test

import (
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/gcpace"
)

// The GOGC that keeps collections 40 s apart for a server with 249 MiB
// live that allocates 11.7 MiB a second, and for the same server idle.
func ExamplePolicy_Percent() {
	p := gcpace.Policy{Interval: 40 * time.Second, MaxPercent: 400, Budget: 4 << 30, Every: 5 * time.Second}
	fmt.Println(p.Percent(11.7*(1<<20), 249<<20))
	fmt.Println(p.Percent(0, 249<<20))
	// Output:
	// 187
	// 100
}
