package platformtest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest"
)

// locate sends a location update as a device app does
// (client.SetDeviceLocation makes this call) and returns the error URI and
// message of a refusal, or "" and nil.
func locate(ctx context.Context, c *client.Client, long, lat float64) (string, any) {
	pos := wamp.List{map[string]any{"long": long, "lat": lat}}
	_, err := c.Call(ctx, "ironflock.location_service.update", nil, pos, nil, nil)
	var rpc client.RPCError
	switch {
	case errors.As(err, &rpc):
		return string(rpc.Err.Error), rpc.Err.Arguments
	case err != nil:
		log.Fatal(err)
	}
	return "", nil
}

// A device app sets its device's position; the test reads what the
// platform stored.
func ExampleDevice_Location() {
	p, err := platformtest.Start(platformtest.WithStartTime(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	dev := p.AddDevice("truck-7")
	in := p.Install(dev, p.AddApp("tracker", ""), platformtest.Dev)

	_, ok := dev.Location()
	fmt.Println("before:", ok)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := join(ctx, p, in)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	locate(ctx, c, 11.576, 48.137)
	loc, ok := dev.Location()
	fmt.Println("after:", ok, loc.Long, loc.Lat, loc.UpdatedAt.Format("2006-01-02"))

	fmt.Println(locate(ctx, c, 11.576, 95)) // refused; the position stays
	// Output:
	// before: false
	// after: true 11.576 48.137 2026-05-01
	// wamp.error.invalid_argument [ironflock.location_service.update: args[0].lat must be a number from -90 to 90, got 95]
}

// A platform without the location service, to test how an app copes
// with one: the update answers wamp.error.no_such_procedure.
func ExampleWithoutLocationService() {
	p, err := platformtest.Start(platformtest.WithoutLocationService())
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	dev := p.AddDevice("truck-7")
	in := p.Install(dev, p.AddApp("tracker", ""), platformtest.Dev)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := join(ctx, p, in)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	uri, _ := locate(ctx, c, 11.576, 48.137)
	_, ok := dev.Location()
	fmt.Println(uri, "stored:", ok)
	// Output: wamp.error.no_such_procedure stored: false
}
