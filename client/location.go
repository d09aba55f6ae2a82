// This file holds SetDeviceLocation.

package client

import (
	"context"
	"math"

	"github.com/flockgo/ironflock/internal/wire"
)

// SetDeviceLocation updates the device's GPS position (longitude -180…180,
// latitude -90…90), shown in real time on the platform's maps. The values
// are checked before anything is sent. The platform does not serve this
// procedure everywhere yet; a refusal comes back as a *WampError
// (wamp.error.no_such_procedure).
func (c *Client) SetDeviceLocation(ctx context.Context, long, lat float64) error {
	const op = "SetDeviceLocation"
	switch {
	case math.IsNaN(long) || long < -180 || long > 180:
		return invalidArg(op, "long", "longitude %v is outside -180…180", long)
	case math.IsNaN(lat) || lat < -90 || lat > 90:
		return invalidArg(op, "lat", "latitude %v is outside -90…90", lat)
	}
	args, kwargs := withMetadata([]any{map[string]any{"long": long, "lat": lat}}, nil, c.meta)
	_, err := c.call(ctx, op, wire.LocationProc, args, kwargs, callSettings{}, c.set.sessionWait)
	return opErr(op, wire.LocationProc, err)
}
