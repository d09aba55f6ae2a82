package client

import (
	"strconv"

	"github.com/gammazero/nexus/v3/wamp"
)

// Kwargs marks keyword arguments among the arguments of Publish, Call and
// the table operations: Publish(ctx, topic, 1, 2, client.Kwargs{"unit": "C"})
// sends args [1, 2] and kwargs {"unit": "C"}. Several Kwargs merge; later
// keys win.
type Kwargs map[string]any

// splitArgs separates positional arguments, keyword arguments and call
// options, and converts every value to its wire form. With kwargs present
// and no positional argument, args is an empty (not nil) list: some routers
// abort a session over a missing args slot followed by kwargs.
func splitArgs(op, uri string, in []any, allowOptions bool) (wamp.List, wamp.Dict, []CallOption, error) {
	var args wamp.List
	var kwargs wamp.Dict
	var opts []CallOption
	for _, a := range in {
		switch x := a.(type) {
		case Kwargs:
			if kwargs == nil {
				kwargs = make(wamp.Dict, len(x))
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
		args = wamp.List{}
	}
	return args, kwargs, opts, nil
}

func encodeKwargs(kw Kwargs, path string) (wamp.Dict, error) {
	if kw == nil {
		return nil, nil
	}
	out := make(wamp.Dict, len(kw))
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
func withMetadata(args wamp.List, kwargs wamp.Dict, meta map[string]any) (wamp.List, wamp.Dict) {
	out := make(wamp.Dict, len(kwargs)+len(meta))
	for k, v := range meta {
		out[k] = v
	}
	for k, v := range kwargs {
		out[k] = v
	}
	if args == nil {
		args = wamp.List{}
	}
	return args, out
}
