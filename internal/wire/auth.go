package wire

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// AppCredMessagePrefix starts the message whose HMAC is a per-app secret:
// ironflock/app-cred/v1|<serial>|<A>|<STAGE>|<epoch> (docs/wire.md §6).
const AppCredMessagePrefix = "ironflock/app-cred/v1"

// AppCredMessage returns the message signed into a per-app secret.
func AppCredMessage(serial string, app int, stage string, epoch int) string {
	return fmt.Sprintf("%s|%s|%d|%s|%d", AppCredMessagePrefix, serial, app, strings.ToUpper(stage), epoch)
}

// AppAuthID formats a per-app authid: app-<A>-<stage>-e<epoch>@<serial>.
func AppAuthID(app int, stage string, epoch int, serial string) string {
	return fmt.Sprintf("app-%d-%s-e%d@%s", app, strings.ToLower(stage), epoch, serial)
}

// appAuthIDPattern is case-sensitive on purpose: APP-26-… or …-DEV-… are
// treated as legacy serials by the platform.
var appAuthIDPattern = regexp.MustCompile(`^app-([0-9]+)-(dev|prod)-e([0-9]+)@(.+)$`)

// ParseAppAuthID splits a per-app authid. Leading zeros are accepted.
func ParseAppAuthID(authid string) (app int, stage string, epoch int, serial string, ok bool) {
	m := appAuthIDPattern.FindStringSubmatch(authid)
	if m == nil {
		return 0, "", 0, "", false
	}
	a, err1 := strconv.Atoi(m[1])
	e, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil {
		return 0, "", 0, "", false
	}
	return a, m[2], e, m[4], true
}
