// This file applies retention (a namespace's retention.deleteAfter, such
// as "30 days") on the platform clock: before every call and every HTTP
// request on a bucket, objects older than their namespace allows are
// deleted. Ages count from last_modified; a month is 30 days and a year
// 365 days, as object-store lifecycle rules count whole days. It serves
// no URI.

package fleetfiles

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// retentionUnits maps the units of deleteAfter to durations.
var retentionUnits = map[string]time.Duration{
	"hour":  time.Hour,
	"day":   24 * time.Hour,
	"week":  7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour,
	"year":  365 * 24 * time.Hour,
}

// parseDeleteAfter reads a validated deleteAfter ("<n> <unit>[s]"); 0
// when it cannot.
func parseDeleteAfter(s string) time.Duration {
	num, unit, ok := strings.Cut(s, " ")
	n, err := strconv.ParseInt(num, 10, 64)
	d := retentionUnits[strings.TrimSuffix(unit, "s")]
	if !ok || err != nil || d == 0 || n <= 0 || n > int64(1<<62)/int64(d) {
		return 0
	}
	return time.Duration(n) * d
}

// sweep deletes the objects whose namespace's retention has passed at
// now.
func (b *bucket) sweep(now time.Time) {
	ages := map[string]time.Duration{}
	if b.tpl != nil && b.tpl.Files != nil {
		for _, ns := range b.tpl.Files.Namespaces {
			if ns.Retention != nil {
				if d := parseDeleteAfter(ns.Retention.DeleteAfter); d > 0 {
					ages[ns.Name] = d
				}
			}
		}
	}
	if len(ages) == 0 {
		return
	}
	for ns, d := range ages {
		if err := b.store.Expire(context.Background(), ns, now.Add(-d)); err != nil {
			b.svc.cfg.Log.Warn("files: retention not applied", "realm", b.ri.Name, "namespace", ns, "err", err)
		}
	}
}
