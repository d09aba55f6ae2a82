package ironflock_test

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// An edge app connected to the fake platform publishes a reading that
// another device of the project receives.
func Example() {
	p, err := platformtest.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	app := p.AddApp("greenhouse", "")
	sensor := p.Install(p.AddDevice("sensor"), app, platformtest.Dev)
	display := p.Install(p.AddDevice("display"), app, platformtest.Dev)

	ctx := context.Background()
	start := func(inst *platformtest.Installation) *client.Client {
		c, err := client.New(client.WithEnv(inst.Env()))
		if err != nil {
			panic(err)
		}
		if err := c.Start(ctx); err != nil {
			panic(err)
		}
		return c
	}
	pub, sub := start(sensor), start(display)
	defer pub.Stop(ctx)
	defer sub.Stop(ctx)

	got := make(chan float64, 1)
	_, _ = sub.Subscribe(ctx, "com.example.humidity", func(_ context.Context, ev *client.Event) {
		v, _ := client.Decode[float64](ev.Args[0])
		got <- v
	})
	_ = pub.Publish(ctx, "com.example.humidity", 61.5)
	fmt.Println("humidity:", <-got)
	// Output: humidity: 61.5
}
