// This file holds how ids of the templates become Go names, and the
// scopes that refuse two ids becoming one name.

package flockgen

import (
	"fmt"
	"strings"
	"unicode"
)

// initialisms are written in upper case inside Go names: golint's list,
// and a few common in device data (RMS, GPS, …).
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true,
	"GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true,
	"LHS": true, "QPS": true, "RAM": true, "RHS": true, "RPC": true, "SLA": true, "SMTP": true,
	"SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true,
	"UID": true, "UUID": true, "URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true,
	// Device data.
	"RMS": true, "GPS": true, "IMEI": true, "MAC": true, "RSSI": true, "SSID": true, "PWM": true,
	"ADC": true, "IO": true, "OS": true, "PID": true,
}

// GoName returns the exported Go name of a template id: words split at
// anything but letters and digits and at lower-to-upper changes, each
// capitalised, initialisms in upper case: machine_state is MachineState,
// vibration_rms VibrationRMS, sensorId SensorID. A name that would start
// with a digit gets an X in front. Go keywords are all lower case, so no
// exported name is one. ok is false when the id has no letter or digit.
func GoName(id string) (name string, ok bool) {
	var b strings.Builder
	for _, w := range words(id) {
		if up := strings.ToUpper(w); initialisms[up] {
			b.WriteString(up)
			continue
		}
		rs := []rune(strings.ToLower(w))
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	name = b.String()
	if name == "" {
		return "", false
	}
	if r := []rune(name)[0]; unicode.IsDigit(r) {
		name = "X" + name
	}
	return name, true
}

// words splits an id into words: at runs of characters other than
// letters and digits, between a lower-case letter or digit and an upper-case
// one, and before the last upper-case letter of an upper-case run that a
// lower-case letter follows (HTTPServer: HTTP, Server).
func words(id string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = nil
		}
	}
	rs := []rune(id)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// scope holds the names of one Go scope (the package, or a struct's
// fields) with what each stands for, and refuses a name taken twice.
type scope struct {
	what  string            // "the package", "the fields of ReadingsRow"
	names map[string]string // Go name → what it stands for
}

func newScope(what string) *scope { return &scope{what: what, names: map[string]string{}} }

// add takes name for owner, or says which owner holds it already.
func (s *scope) add(name, owner string) error {
	if prev, ok := s.names[name]; ok {
		return fmt.Errorf("%s and %s both become the Go name %s in %s; rename one of them", prev, owner, name, s.what)
	}
	s.names[name] = owner
	return nil
}
