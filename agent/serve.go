// This file holds Serve, which registers the tools of an agent template as
// device functions, the Service it returns, and the handling of one
// invocation: arguments read in any convention, validated against the
// tool's JSON Schema, decoded, the Go function run, its result's size
// checked.

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// Service is the tools of an agent template served as device functions of
// one client. The client restores their registrations after every
// reconnect, like every device function.
type Service struct {
	regs []*client.Registration
}

// Serve registers every topic tool of t as a device function of c,
// served by the Go tool of its topic. Before anything registers it checks
// that every topic tool has exactly one Go tool and the reverse, and that
// each typed tool's struct agrees with the tool's parameters; every
// mismatch is reported at once in a *BindError (matching ErrMismatch),
// each at its position in the template file.
//
// Each invocation then takes the arguments as keyword arguments, as one
// positional object or as positional values in parameter order (the
// platform's device_key is dropped), validates them against the tool's
// JSON Schema and refuses invalid ones with wamp.error.invalid_argument
// and a short text naming the parameter and what it takes; the Go function
// runs only on valid arguments. A result whose JSON encoding is over the
// tool's MaxResultBytes is not sent: the caller gets
// wamp.error.runtime_error saying so.
//
// When a registration fails, those made are undone and the error names
// the topic. Serve needs DEVICE_KEY, as RegisterDeviceFunction does.
func Serve(ctx context.Context, c *client.Client, t *Template, tools ...Tool) (*Service, error) {
	if c == nil || t == nil || t.AgentTemplate == nil {
		return nil, &OpError{Op: "Serve", Err: fmt.Errorf("%w: a client and a template are required", client.ErrInvalidArgument)}
	}
	bs, err := bind(t, tools)
	if err != nil {
		return nil, err
	}
	s := &Service{}
	for _, b := range bs {
		reg, err := c.RegisterDeviceFunction(ctx, b.topic, b.serve)
		if err != nil {
			_ = s.Unregister(context.WithoutCancel(ctx))
			return nil, &OpError{Op: "Serve", Topic: b.topic, Err: err}
		}
		s.regs = append(s.regs, reg)
	}
	return s, nil
}

// Topics returns the topics served, sorted.
func (s *Service) Topics() []string {
	out := make([]string, len(s.regs))
	for i, r := range s.regs {
		out[i] = r.Name()
	}
	return out
}

// Procedures returns the full URIs of the tools' device functions,
// <SWARM>.<DEVICE_KEY>.<APP>.<STAGE>.<topic>, in topic order.
func (s *Service) Procedures() []string {
	out := make([]string, len(s.regs))
	for i, r := range s.regs {
		out[i] = r.Procedure()
	}
	return out
}

// Unregister removes every registration of the service; invocations
// arriving afterwards are answered wamp.error.no_such_procedure.
func (s *Service) Unregister(ctx context.Context) error {
	var errs []error
	for _, r := range s.regs {
		if err := r.Unregister(ctx); err != nil {
			errs = append(errs, &OpError{Op: "Unregister", Topic: r.Name(), Err: err})
		}
	}
	return errors.Join(errs...)
}

// serve handles one invocation of the bound tool, telling its hooks.
func (b *binding) serve(ctx context.Context, inv *client.Invocation) (any, error) {
	if len(b.tool.hooks) == 0 {
		res, _, err := b.run(ctx, inv)
		return res, err
	}
	start := time.Now()
	res, invalid, err := b.run(ctx, inv)
	call := ToolCall{Topic: b.topic, Invalid: invalid, Took: time.Since(start), Err: err}
	for _, h := range b.tool.hooks {
		h.OnTool(ctx, call)
	}
	return res, err
}

// run validates the arguments, runs the tool and checks its result's
// size; invalid reports arguments refused before the tool ran.
func (b *binding) run(ctx context.Context, inv *client.Invocation) (res any, invalid bool, err error) {
	obj, err := b.params.argumentObject(inv.Args, inv.Kwargs)
	if err != nil {
		return nil, true, InvalidArgument("invalid arguments: %v", err)
	}
	if msg := validate(b.schema, b.props, obj); msg != "" {
		return nil, true, InvalidArgument("%s", msg)
	}
	res, err = b.tool.call(ctx, obj)
	if err != nil {
		return nil, false, err
	}
	if err := checkSize(res, b.tool.maxResult); err != nil {
		return nil, false, err
	}
	return res, false, nil
}

// checkSize refuses a result whose JSON encoding is over limit bytes.
func checkSize(res any, limit int) error {
	enc, err := json.Marshal(res)
	if err != nil {
		return &client.WampError{URI: wire.ErrRuntimeError, Args: []any{"the tool's result cannot be encoded as JSON: " + err.Error()}}
	}
	if len(enc) > limit {
		return &client.WampError{URI: wire.ErrRuntimeError, Args: []any{fmt.Sprintf(
			"result too large: %d bytes of JSON, over the tool's limit of %d; ask for less (a narrower range, fewer items)", len(enc), limit)}}
	}
	return nil
}
