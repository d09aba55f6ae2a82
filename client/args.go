// This file holds the arguments of an operation: Kwargs, their split into
// positional and keyword arguments in wire form, and the device metadata.

package client

import (
	"strconv"
	"unicode/utf8"
)

// Kwargs marks keyword arguments among the arguments of Publish, Call and
// the table operations: Publish(ctx, topic, 1, 2, client.Kwargs{"unit": "C"})
// sends args [1, 2] and kwargs {"unit": "C"}. Several Kwargs merge; later
// keys win.
type Kwargs map[string]any

// noOptions is the option type of operations that take no per-call
// options among their arguments: nothing implements it.
type noOptions interface{ noOptions() }

// splitArgs separates positional arguments, keyword arguments and the
// per-call options of type O (CallOption, PublishOption or noOptions),
// handing each option to apply, and converts every value to its wire form;
// options of another operation are refused. With kwargs present and no
// positional argument, args is an empty (not nil) list: some routers abort
// a session over a missing args slot followed by kwargs. When the
// positional arguments are in wire form already and come first, args is
// in[:k] itself: the engine copies what it sends.
func splitArgs[O any](op, uri string, in []any, apply func(O)) ([]any, map[string]any, error) {
	k := 0
	for k < len(in) && wireArg(in[k]) {
		k++
	}
	fast := true
	for _, a := range in[k:] {
		if _, ok := a.(O); !ok {
			fast = false
			break
		}
	}
	if fast {
		for _, a := range in[k:] {
			apply(a.(O))
		}
		if k == 0 {
			return nil, nil, nil
		}
		return in[:k:k], nil, nil
	}
	var args []any
	var kwargs map[string]any
	for _, a := range in {
		// A row first: a map has no methods, so it is no option, and this
		// look costs less than one for an option interface.
		if m, ok := a.(map[string]any); ok && wireMap(m) {
			args = append(args, a) // already its own wire form
			continue
		}
		if o, ok := a.(O); ok {
			apply(o)
			continue
		}
		switch x := a.(type) {
		case Kwargs:
			if kwargs == nil {
				kwargs = make(map[string]any, len(x))
			}
			for k, v := range x {
				if ev, ok := scalar(v); ok {
					kwargs[validString(k)] = ev
					continue
				}
				ev, err := encodeValue(v, "kwargs."+k)
				if err != nil {
					return nil, nil, invalidArg(op, uri, "%v", err)
				}
				kwargs[validString(k)] = ev
			}
		case CallOption:
			return nil, nil, invalidArg(op, uri, "call options are not accepted here")
		case PublishOption:
			return nil, nil, invalidArg(op, uri, "publish options are not accepted here")
		default:
			ev, err := encodeValue(a, argPath(len(args)))
			if err != nil {
				return nil, nil, invalidArg(op, uri, "%v", err)
			}
			args = append(args, ev)
		}
	}
	if kwargs != nil && args == nil {
		args = []any{}
	}
	return args, kwargs, nil
}

// wireArg reports whether a positional argument is sent as it is: a row
// in wire form (wireMap) or a scalar the encoder keeps.
func wireArg(a any) bool {
	switch x := a.(type) {
	case map[string]any:
		return x != nil && wireMap(x)
	case nil, bool, int64, float64:
		return true
	case string:
		return utf8.ValidString(x)
	}
	return false
}

// maxWireDepth bounds how deep wireMap looks: a deeper value (or a cyclic
// one) goes through the encoder, which reports cycles.
const maxWireDepth = 32

// wireMap reports whether m is already in wire form with nothing to
// convert: valid UTF-8 keys, and values that are nil, bool, int64,
// float64, valid UTF-8 strings, or maps and lists of such values (at most
// maxWireDepth deep), as a row often is. Such a map is sent as it is
// instead of copied: the message is written before the operation returns,
// so the caller's map is only read, and only meanwhile.
func wireMap(m map[string]any) bool { return wireMapAt(m, 0) }

func wireMapAt(m map[string]any, depth int) bool {
	if depth > maxWireDepth {
		return false
	}
	for k, v := range m {
		if !utf8.ValidString(k) || !wireValue(v, depth) {
			return false
		}
	}
	return true
}

// wireValue reports whether v is in wire form (see wireMap).
func wireValue(v any, depth int) bool {
	switch x := v.(type) {
	case nil, bool, int64, float64:
		return true
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		return x != nil && wireMapAt(x, depth+1)
	case []any:
		if x == nil || depth >= maxWireDepth {
			return false
		}
		for _, e := range x {
			if !wireValue(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// argPaths name the first positional arguments in error messages without
// building the name at every call.
var argPaths = [...]string{"args[0]", "args[1]", "args[2]", "args[3]", "args[4]", "args[5]", "args[6]", "args[7]"}

// argPath names positional argument i in error messages.
func argPath(i int) string {
	if i < len(argPaths) {
		return argPaths[i]
	}
	return "args[" + strconv.Itoa(i) + "]"
}

func encodeKwargs(kw Kwargs, path string) (map[string]any, error) {
	if kw == nil {
		return nil, nil
	}
	out := make(map[string]any, len(kw))
	for k, v := range kw {
		if ev, ok := scalar(v); ok {
			out[validString(k)] = ev
			continue
		}
		ev, err := encodeValue(v, path+"."+k)
		if err != nil {
			return nil, err
		}
		out[validString(k)] = ev
	}
	return out, nil
}

// withMetadata merges the device metadata into kwargs; keys the caller set
// win. It returns the args slot to send (never nil when kwargs exist).
// Without kwargs of the caller's it returns meta itself, which is built
// once per client and never modified: what is sent is only read.
func withMetadata(args []any, kwargs map[string]any, meta map[string]any) ([]any, map[string]any) {
	if args == nil {
		args = []any{}
	}
	if len(kwargs) == 0 {
		return args, meta
	}
	out := make(map[string]any, len(kwargs)+len(meta))
	for k, v := range meta {
		out[k] = v
	}
	for k, v := range kwargs {
		out[k] = v
	}
	return args, out
}
