// This file holds abort, an ABORT read leniently, so that a malformed one
// (a reason that is not a string, details missing) still names the reason
// the router gave.

package engine

import (
	"encoding/json"
	"fmt"
)

// abort is an ABORT [3, details, reason] as the router sent it.
type abort struct {
	reason  any            // nil when missing
	details map[string]any // nil when missing or not a dict
}

func (abort) kind() msgType { return mtAbort }

// abortOf reads the elements of an ABORT after its type. Two elements are
// details and reason; one is the details when it is a dict, else the
// reason.
func abortOf(l []any) abort {
	var a abort
	switch {
	case len(l) >= 2:
		a.details, _ = l[0].(map[string]any)
		a.reason = l[1]
	case len(l) == 1:
		if d, ok := l[0].(map[string]any); ok {
			a.details = d
		} else {
			a.reason = l[0]
		}
	}
	return a
}

// uri returns the reason when it is a non-empty string.
func (a abort) uri() (string, bool) {
	s, ok := a.reason.(string)
	return s, ok && s != ""
}

// describe renders the reason for a message: the URI, or the value the
// router sent in its place, and the router's message if any.
func (a abort) describe() string {
	text := ""
	if uri, ok := a.uri(); ok {
		text = uri
	} else if a.reason == nil {
		text = "malformed ABORT without a reason"
	} else {
		b, err := json.Marshal(a.reason)
		if err != nil {
			b = []byte(fmt.Sprintf("%v", a.reason))
		}
		text = fmt.Sprintf("malformed ABORT with reason %s (not a URI)", b)
	}
	if a.details == nil {
		text += " (details missing)"
	} else if msg, ok := a.details["message"].(string); ok && msg != "" {
		text += ": " + msg
	}
	return text
}

// joinError is the error of a join the router refused with a: an *Error
// carrying the reason URI (and the router's message as its argument), or,
// when the reason is not a URI, an error quoting what the router sent.
func (a abort) joinError(realm string) error {
	uri, ok := a.uri()
	if !ok {
		return fmt.Errorf("join %s: the router refused the join: %s", realm, a.describe())
	}
	e := &Error{URI: uri}
	if msg, ok := a.details["message"].(string); ok && msg != "" {
		e.Args = []any{msg}
	}
	return e
}
