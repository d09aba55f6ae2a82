// This file holds durationText: durations as error and log messages show
// them.

package client

import (
	"strconv"
	"time"
)

// durationText renders d rounded for people: in seconds to a tenth from one
// second up ("60s" for 59.999999439s, "1.5s", "120s"), in whole
// milliseconds below ("50ms").
func durationText(d time.Duration) string {
	if d >= time.Second || d <= -time.Second {
		return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + "s"
	}
	if d >= time.Millisecond || d <= -time.Millisecond {
		return d.Round(time.Millisecond).String()
	}
	return d.String()
}
