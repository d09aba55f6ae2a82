// This file serves the device routes of the management REST API:
//
//	GET    /devices                                 devices of the user's projects
//	GET    /devices/{device_key}                    one device
//	POST   /swarms/{swarm_key}/devices              create one or more devices (all or nothing)
//	DELETE /swarms/{swarm_key}/devices/{device_key} delete one device
//	DELETE /swarms/{swarm_key}/devices?ids=1,2,3    delete several devices (all or nothing)

package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

func (api *API) routeDevices(route func(string, restFunc)) {
	route("GET /devices", api.restListDevices)
	route("GET /devices/{device_key}", api.restGetDevice)
	route("POST /swarms/{swarm_key}/devices", api.restCreateDevices)
	route("DELETE /swarms/{swarm_key}/devices/{device_key}", api.restDeleteDevice)
	route("DELETE /swarms/{swarm_key}/devices", api.restDeleteDevices)
}

func (api *API) restListDevices(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		out := []Device{}
		for _, d := range c.st.Devices() {
			if c.st.Role(c.u, d.Project) != "" {
				out = append(out, c.deviceView(d))
			}
		}
		return http.StatusOK, out, nil
	})
}

func (api *API) restGetDevice(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		d, err := c.pathDevice(nil)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, c.deviceView(d), nil
	})
}

// Limits of the device fields.
const (
	maxDescription  = 1000
	maxArchitecture = 63
)

// parseNewDevices reads the body of a device creation: one object or an
// array of 1 to MaxBulk objects {name, description?, architecture?}.
func parseNewDevices(body []byte) ([]registry.NewDevice, *apiError) {
	if err := checkJSON(body); err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	var raws []json.RawMessage
	single := body[0] == '{'
	switch body[0] {
	case '{':
		raws = []json.RawMessage{body}
	case '[':
		if err := json.Unmarshal(body, &raws); err != nil {
			return nil, errorf(http.StatusBadRequest, wire.CodeInvalidJSON, "the body is not valid JSON: %s", describeJSONError(err))
		}
		if len(raws) == 0 {
			return nil, invalid("the body is an empty array; send at least one device")
		}
		if len(raws) > MaxBulk {
			return nil, invalid("the body holds %d devices; at most %d per request", len(raws), MaxBulk)
		}
	default:
		return nil, invalid("the body must be a device object or an array of device objects")
	}
	out := make([]registry.NewDevice, 0, len(raws))
	names := map[string]int{}
	for i, raw := range raws {
		where := fmt.Sprintf("devices[%d]", i)
		if single {
			where = "the body"
		}
		o, err := parseObject(raw, where, "name", "description", "architecture")
		if err != nil {
			return nil, err
		}
		var nd registry.NewDevice
		if nd.Name, _, err = o.str("name", true); err != nil {
			return nil, err
		}
		if err := checkDisplayName(where, nd.Name); err != nil {
			return nil, err
		}
		if nd.Description, _, err = o.str("description", false); err != nil {
			return nil, err
		}
		if err := checkText(where, "description", nd.Description, maxDescription); err != nil {
			return nil, err
		}
		if nd.Architecture, _, err = o.str("architecture", false); err != nil {
			return nil, err
		}
		if err := checkText(where, "architecture", nd.Architecture, maxArchitecture); err != nil {
			return nil, err
		}
		if j, dup := names[nd.Name]; dup {
			return nil, invalid("devices[%d] and devices[%d] are both named %q", j, i, nd.Name)
		}
		names[nd.Name] = i
		out = append(out, nd)
	}
	return out, nil
}

func (api *API) restCreateDevices(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return api.write(c, func() (int, any, *apiError) {
		pr, err := c.pathProject()
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(pr); err != nil {
			return 0, nil, err
		}
		specs, err := parseNewDevices(body)
		if err != nil {
			return 0, nil, err
		}
		var taken *registry.Device // the existing device of lowest key among the names asked for
		for _, s := range specs {
			if d := c.st.DeviceNamed(pr, s.Name); d != nil && (taken == nil || d.Key < taken.Key) {
				taken = d
			}
		}
		if taken != nil {
			return 0, nil, conflict(wire.CodeAlreadyExists, "device %q exists in project %d (device %d)", taken.Name, pr.Key, taken.Key)
		}
		ds, cerr := c.st.CreateDevices(pr, specs)
		if cerr != nil { // cannot happen: names are checked
			return 0, nil, invalid("%v", cerr)
		}
		out := []Device{}
		for _, d := range ds {
			out = append(out, c.deviceView(d))
		}
		return http.StatusCreated, out, nil
	})
}

func (api *API) restDeleteDevice(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		pr, err := c.pathProject()
		if err != nil {
			return 0, nil, err
		}
		d, err := c.pathDevice(pr)
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(pr); err != nil {
			return 0, nil, err
		}
		c.st.DeleteDevice(d)
		return http.StatusNoContent, nil, nil
	})
}

func (api *API) restDeleteDevices(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		pr, err := c.pathProject()
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(pr); err != nil {
			return 0, nil, err
		}
		keys, err := queryIDs(c.r)
		if err != nil {
			return 0, nil, err
		}
		var ds []*registry.Device
		for _, k := range keys {
			d := c.st.Device(k)
			if d == nil || d.Project != pr {
				return 0, nil, notFound("device %d not found in project %d; nothing was deleted", k, pr.Key)
			}
			ds = append(ds, d)
		}
		for _, d := range ds {
			c.st.DeleteDevice(d)
		}
		return http.StatusNoContent, nil, nil
	})
}
