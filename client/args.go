// This file holds the arguments of an operation: Kwargs, their split into
// positional and keyword arguments in wire form, and the device metadata.

package client

import "strconv"

// Kwargs marks keyword arguments among the arguments of Publish, Call and
// the table operations: Publish(ctx, topic, 1, 2, client.Kwargs{"unit": "C"})
// sends args [1, 2] and kwargs {"unit": "C"}. Several Kwargs merge; later
// keys win.
type Kwargs map[string]any

// splitArgs separates positional arguments, keyword arguments and call
// options, and converts every value to its wire form. With kwargs present
// and no positional argument, args is an empty (not nil) list: some routers
// abort a session over a missing args slot followed by kwargs.
func splitArgs(op, uri string, in []any, allowOptions bool) ([]any, map[string]any, []CallOption, error) {
	var args []any
	var kwargs map[string]any
	var opts []CallOption
	for _, a := range in {
		switch x := a.(type) {
		case Kwargs:
			if kwargs == nil {
				kwargs = make(map[string]any, len(x))
			}
			for k, v := range x {
				ev, err := encodeValue(v, "kwargs."+k)
				if err != nil {
					return nil, nil, nil, invalidArg(op, uri, "%v", err)
				}
				kwargs[validString(k)] = ev
			}
		case CallOption:
			if !allowOptions {
				return nil, nil, nil, invalidArg(op, uri, "call options are not accepted here")
			}
			opts = append(opts, x)
		default:
			ev, err := encodeValue(a, "args["+strconv.Itoa(len(args))+"]")
			if err != nil {
				return nil, nil, nil, invalidArg(op, uri, "%v", err)
			}
			args = append(args, ev)
		}
	}
	if kwargs != nil && args == nil {
		args = []any{}
	}
	return args, kwargs, opts, nil
}

func encodeKwargs(kw Kwargs, path string) (map[string]any, error) {
	if kw == nil {
		return nil, nil
	}
	out := make(map[string]any, len(kw))
	for k, v := range kw {
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
func withMetadata(args []any, kwargs map[string]any, meta map[string]any) ([]any, map[string]any) {
	out := make(map[string]any, len(kwargs)+len(meta))
	for k, v := range meta {
		out[k] = v
	}
	for k, v := range kwargs {
		out[k] = v
	}
	if args == nil {
		args = []any{}
	}
	return args, out
}
