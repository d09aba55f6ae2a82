// This file holds SetDeviceLocation.

package client

import (
	"context"
	"math"

	"github.com/flockgo/ironflock/internal/wire"
)

// SetDeviceLocation updates the device's GPS position (longitude -180…180,
// latitude -90…90, degrees, both ends included), shown in real time on the
// platform's maps and in the device record of the management API. The
// platform keeps only the current position and when it was set, not a
// history. The device is the one the client runs as; the values are
// checked before anything is sent (ErrInvalidArgument). A platform without
// the location service answers with a *WampError
// wamp.error.no_such_procedure.
func (c *Client) SetDeviceLocation(ctx context.Context, long, lat float64) error {
	const op = "SetDeviceLocation"
	switch {
	case math.IsNaN(long) || long < -180 || long > 180:
		return invalidArg(op, "long", "longitude %v is outside -180…180", long)
	case math.IsNaN(lat) || lat < -90 || lat > 90:
		return invalidArg(op, "lat", "latitude %v is outside -90…90", lat)
	}
	args, kwargs := withMetadata([]any{map[string]any{"long": long, "lat": lat}}, nil, c.metadata())
	_, err := c.call(ctx, op, wire.LocationProc, args, kwargs, callSettings{}, c.set.sessionWait)
	return opErr(op, wire.LocationProc, err)
}
