// This file reads the arguments of one tool invocation into one argument
// object, whichever of the three conventions of the platform's agent
// runtime carried them (docs/wire.md §7.14): keyword arguments, one
// positional object, or positional values in parameter order. The
// platform's device_key is stripped.

package agent

import (
	"fmt"
	"maps"
	"strings"
)

// deviceKeyParam is the parameter the platform adds to every topic tool to
// route the call; it is not the tool's.
const deviceKeyParam = "device_key"

// params is what the reading of arguments needs to know of a tool.
type params struct {
	order       []string // parameter names in the template's order
	firstObject bool     // the first parameter takes an object
	declared    map[string]bool
}

// argumentObject returns the argument object of an invocation. The rules,
// in order:
//
//  1. device_key is dropped from the keyword arguments.
//  2. Keyword arguments left: they are the arguments; positional values
//     beside them fill the parameters in order first (a parameter given
//     both ways is refused).
//  3. No keyword arguments and exactly one positional value that is an
//     object: it is the argument object (device_key dropped), unless the
//     first parameter takes an object and the value has a key that is no
//     parameter: then it is that parameter's value (rule 4).
//  4. Otherwise the positional values are the parameters in order; null
//     means absent; more values than parameters are refused.
func (p params) argumentObject(args []any, kwargs map[string]any) (map[string]any, error) {
	kw := maps.Clone(kwargs)
	delete(kw, deviceKeyParam)
	if len(kw) == 0 && len(args) == 1 {
		if obj, ok := args[0].(map[string]any); ok && (!p.firstObject || p.allDeclared(obj)) {
			out := maps.Clone(obj)
			if out == nil {
				out = map[string]any{}
			}
			delete(out, deviceKeyParam)
			return out, nil
		}
	}
	out := make(map[string]any, len(args)+len(kw))
	if len(args) > len(p.order) {
		return nil, fmt.Errorf("got %d positional arguments, but the tool takes %s", len(args), p.takes())
	}
	for i, v := range args {
		if v != nil {
			out[p.order[i]] = v
		}
	}
	for k, v := range kw {
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("parameter %q is given twice, by position and by name", k)
		}
		out[k] = v
	}
	return out, nil
}

// allDeclared reports whether every key of obj is a parameter or
// device_key.
func (p params) allDeclared(obj map[string]any) bool {
	for k := range obj {
		if k != deviceKeyParam && !p.declared[k] {
			return false
		}
	}
	return true
}

// takes describes the parameters for messages: "2 (city, days)".
func (p params) takes() string {
	if len(p.order) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d (%s)", len(p.order), strings.Join(p.order, ", "))
}
