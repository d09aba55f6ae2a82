// This file holds device functions: RegisterDeviceFunction, Register and
// CallDeviceFunction, and their URIs.

package client

import (
	"context"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// functionURI is a device function's URI, kept for the next call of the
// same function: a device mostly calls one function in a loop.
type functionURI struct {
	deviceKey int
	name, uri string
}

// deviceFunctionURI composes <SWARM>.<DEVICE_KEY>.<APP>.<STAGE>.<name>; the
// last one composed is kept and returned again for the same function.
func (c *Client) deviceFunctionURI(op string, deviceKey int, name string) (string, error) {
	if f := c.lastFn.Load(); f != nil && f.deviceKey == deviceKey && f.name == name {
		return f.uri, nil
	}
	uri, err := c.composeFunctionURI(op, deviceKey, name)
	if err == nil {
		c.lastFn.Store(&functionURI{deviceKey: deviceKey, name: name, uri: uri})
	}
	return uri, err
}

// composeFunctionURI checks name and composes the URI of a device function.
func (c *Client) composeFunctionURI(op string, deviceKey int, name string) (string, error) {
	if name == "" || strings.TrimSpace(name) != name {
		return "", invalidArg(op, name, "the function name must be non-empty without surrounding whitespace")
	}
	if err := c.id.requireApp(op); err != nil {
		return "", err
	}
	uri := wire.DeviceFunction(c.id.SwarmKey, deviceKey, c.id.AppKey, string(c.id.Stage), name)
	if err := checkTopic(op, uri, false); err != nil {
		return "", err
	}
	return uri, nil
}

// RegisterDeviceFunction registers handler as the procedure name of this
// device, callable by other devices of the project at
// <SWARM>.<DEVICE_KEY>.<APP>.<STAGE>.<name>. It takes the procedure over from
// another session of this device that still holds it (force_reregister),
// and is restored after every reconnect until Unregister. It needs
// DEVICE_KEY (ErrMissingConfig otherwise).
func (c *Client) RegisterDeviceFunction(ctx context.Context, name string, handler InvocationHandler, opts ...RegisterOption) (*Registration, error) {
	const op = "RegisterDeviceFunction"
	if c.id.DeviceKey <= 0 {
		return nil, missingConfig(op, name, "DEVICE_KEY is not set to a positive number; this device cannot register functions")
	}
	uri, err := c.deviceFunctionURI(op, c.id.DeviceKey, name)
	if err != nil {
		return nil, err
	}
	return c.register(ctx, op, name, uri, handler, deviceFunctionOptions, opts)
}

// Register is an alias of RegisterDeviceFunction.
func (c *Client) Register(ctx context.Context, name string, handler InvocationHandler, opts ...RegisterOption) (*Registration, error) {
	return c.RegisterDeviceFunction(ctx, name, handler, opts...)
}

// CallDeviceFunction calls the function name registered by the device with
// key deviceKey in the same project, app and stage. Arguments work as for
// Call; no device metadata is added.
//
// A function that is not registered is refused with
// wamp.error.no_such_procedure: the device is offline, does not serve it,
// or has not registered it again yet after a reconnect of its own (a
// restarting router, a device coming back). When a call may race such a
// return, pass WaitForRegistration(d) to retry the refusal for up to d;
// without it the refusal is returned at once, which suits a caller that
// would rather know the device is away.
func (c *Client) CallDeviceFunction(ctx context.Context, deviceKey int, name string, args ...any) (*Result, error) {
	const op = "CallDeviceFunction"
	if deviceKey <= 0 {
		return nil, invalidArg(op, name, "device key %d is not a positive number", deviceKey)
	}
	uri, err := c.deviceFunctionURI(op, deviceKey, name)
	if err != nil {
		return nil, err
	}
	wargs, kwargs, cs, err := callArgs(op, uri, args)
	if err != nil {
		return nil, err
	}
	res, err := c.callWaiting(ctx, op, uri, wargs, kwargs, cs)
	return res, opErr(op, uri, err)
}
