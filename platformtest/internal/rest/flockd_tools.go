// This file serves flockd's own route for local development, which is not
// part of the platform's API (docs/flockd.md §6):
//
//	POST /v1/flockd/devices/{device_key}/apps/{app_key}/agents/{agent}/tools/{tool}?stage=
//	     call a topic tool on the device, as the platform's agent runtime does
//	     {arguments?, convention?: keyword|object|positional, keep_device_key?}
//
// It authenticates like the platform's routes (bearer token, the user's
// projects) and needs the admin role of the device's project: a tool acts
// on a device. The answer is 200 with the call and what the model reads —
// the result, or the error URI and text of a refusal — whenever the call
// was made; errors of the route itself are the API's {"error", "code"}.

package rest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/agents"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// FlockdPrefix is the path prefix of flockd's own routes, which are not
// part of the platform's API.
const FlockdPrefix = "/v1/flockd"

func (api *API) routeFlockd(route func(string, restFunc)) {
	route("POST /devices/{device_key}/apps/{app_key}/agents/{agent}/tools/{tool}", api.restInvokeTool)
	route("POST /devices/{device_key}/apps/{app_key}/transforms/{transform}/refresh", api.restRefreshTransform) // flockd_transforms.go
}

// mountFlockd registers flockd's routes on mux under FlockdPrefix.
func (api *API) mountFlockd(mux *http.ServeMux) {
	routes := http.NewServeMux()
	api.routeFlockd(func(pattern string, f restFunc) { routes.HandleFunc(pattern, serveRoute(f)) })
	mux.Handle(FlockdPrefix+"/", api.restEntry(FlockdPrefix, routes))
}

// ToolCall is the answer of the tool route: one call of the agent
// runtime.
type ToolCall struct {
	Agent      string         `json:"agent"`
	Tool       string         `json:"tool"`
	Topic      string         `json:"topic"`
	Procedure  string         `json:"procedure"`
	DeviceKey  int            `json:"device_key"`
	Convention string         `json:"convention"`
	Arguments  map[string]any `json:"arguments"`
	Args       []any          `json:"args"`
	Kwargs     map[string]any `json:"kwargs,omitempty"`
	OK         bool           `json:"ok"`
	Result     any            `json:"result"`
	Error      *ToolError     `json:"error,omitempty"`
	Time       time.Time      `json:"time"`
}

// ToolError is a tool's refusal, as the model reads it.
type ToolError struct {
	URI     string `json:"uri"`
	Message string `json:"message"`
}

func (api *API) restInvokeTool(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	var req agents.Request
	if _, _, err := api.read(c, func() (int, any, *apiError) {
		req, err = c.toolRequest(body)
		return 0, nil, err
	}); err != nil {
		return 0, nil, err
	}
	call, ierr := api.cfg.Agents.Invoke(c.r.Context(), req)
	if ierr != nil { // checked above; the app's release may have changed since
		return 0, nil, invalid("%v", ierr)
	}
	return http.StatusOK, toolCallView(call), nil
}

// toolRequest resolves the route's path and body into a request of the
// agent runtime, under the registry's lock.
func (c *restCall) toolRequest(body []byte) (agents.Request, *apiError) {
	var req agents.Request
	d, err := c.pathDevice(nil)
	if err != nil {
		return req, err
	}
	in, err := c.pathInstall(d)
	if err != nil {
		return req, err
	}
	src := in.AgentTemplate()
	tpl, perr := registry.ParseAgentTemplate(src)
	if perr != nil || tpl == nil {
		return req, notFound("app %d has no agent template in the release device %d runs", in.App.Key, d.Key)
	}
	name, tool := c.r.PathValue("agent"), c.r.PathValue("tool")
	a := tpl.Agents[name]
	if a == nil {
		return req, notFound("agent %q not found in the agent template of app %d", name, in.App.Key)
	}
	tl := a.Tools[tool]
	if tl == nil {
		return req, notFound("tool %q not found in agent %q", tool, name)
	}
	if err := c.requireAdmin(d.Project); err != nil {
		return req, err
	}
	if err := checkJSON(body); err != nil {
		return req, err
	}
	o, err := parseObject(body, "the body", "arguments", "convention", "keep_device_key")
	if err != nil {
		return req, err
	}
	args, err := o.object("arguments")
	if err != nil {
		return req, err
	}
	conv, _, err := enum(o, "convention", false, agents.Conventions)
	if err != nil {
		return req, err
	}
	keep, err := o.boolean("keep_device_key")
	if err != nil {
		return req, err
	}
	if tl.Delegate != "" {
		return req, invalid("tool %q of agent %q delegates to agent %q; only a topic tool calls a device", tool, name, tl.Delegate)
	}
	if v, ok := args["device_key"]; ok {
		if n, isNum := v.(json.Number); !isNum || n.String() != strconv.Itoa(d.Key) {
			return req, invalid("the body: arguments.device_key is %v, but the path names device %d; leave it out", v, d.Key)
		}
	}
	ri, _ := c.st.Realm(in.Realm)
	cv, _ := agents.ParseConvention(conv) // "" (absent) is keyword
	return agents.Request{Realm: ri, Template: src, Agent: name, Tool: tool, DeviceKey: d.Key,
		Arguments: args, Convention: cv, KeepDeviceKey: keep}, nil
}

// object reads an optional JSON object field; absent is an empty one.
func (o *jsonObject) object(name string) (map[string]any, *apiError) {
	v := o.raw(name)
	if v == nil {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var m map[string]any
	if v[0] != '{' || dec.Decode(&m) != nil {
		return nil, invalid("%s: field %q must be a JSON object", o.where, name)
	}
	return m, nil
}

// boolean reads an optional boolean field; absent is false.
func (o *jsonObject) boolean(name string) (bool, *apiError) {
	v := o.raw(name)
	var b bool
	if v != nil && json.Unmarshal(v, &b) != nil {
		return false, invalid("%s: field %q must be true or false", o.where, name)
	}
	return b, nil
}

// toolCallView is the answer of a call. Values JSON cannot carry (NaN,
// ±Inf from a device) are given as their text.
func toolCallView(c agents.Call) ToolCall {
	v := ToolCall{Agent: c.Agent, Tool: c.Tool, Topic: c.Topic, Procedure: c.Procedure, DeviceKey: c.DeviceKey,
		Convention: c.Convention.String(), Arguments: c.Arguments, OK: c.Error == "", Time: c.Time.UTC()}
	v.Args, _ = jsonSafe(c.Args).([]any)
	v.Kwargs, _ = jsonSafe(c.Kwargs).(map[string]any)
	v.Result = jsonSafe(c.Result)
	if c.Error != "" {
		v.Error = &ToolError{URI: c.Error, Message: c.Message}
	}
	return v
}

// jsonSafe returns v with the floats JSON cannot carry as their text.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	}
	return v
}
