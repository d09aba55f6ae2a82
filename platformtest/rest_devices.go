// This file serves the device routes of the management REST API:
//
//	GET    /devices                                 devices of the user's projects
//	GET    /devices/{device_key}                    one device
//	POST   /swarms/{swarm_key}/devices              create one or more devices (all or nothing)
//	DELETE /swarms/{swarm_key}/devices/{device_key} delete one device
//	DELETE /swarms/{swarm_key}/devices?ids=1,2,3    delete several devices (all or nothing)

package platformtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

func (p *Platform) routeDevices(route func(string, restFunc)) {
	route("GET /devices", p.restListDevices)
	route("GET /devices/{device_key}", p.restGetDevice)
	route("POST /swarms/{swarm_key}/devices", p.restCreateDevices)
	route("DELETE /swarms/{swarm_key}/devices/{device_key}", p.restDeleteDevice)
	route("DELETE /swarms/{swarm_key}/devices", p.restDeleteDevices)
}

func (p *Platform) restListDevices(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		var ds []*Device
		for _, d := range p.st.devices {
			if p.roleLocked(c.u, d.project) != "" {
				ds = append(ds, d)
			}
		}
		slices.SortFunc(ds, func(a, b *Device) int { return cmp.Compare(a.key, b.key) })
		out := []deviceView{}
		for _, d := range ds {
			out = append(out, p.deviceViewLocked(d))
		}
		return http.StatusOK, out, nil
	})
}

func (p *Platform) restGetDevice(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		d, err := p.pathDeviceLocked(c, nil)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, p.deviceViewLocked(d), nil
	})
}

// Limits of the device fields.
const (
	maxDescription  = 1000
	maxArchitecture = 63
)

// parseNewDevices reads the body of a device creation: one object or an
// array of 1 to maxBulk objects {name, description?, architecture?}.
func parseNewDevices(body []byte) ([]newDevice, *apiError) {
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
			return nil, errorf(http.StatusBadRequest, codeInvalidJSON, "the body is not valid JSON: %s", describeJSONError(err))
		}
		if len(raws) == 0 {
			return nil, invalid("the body is an empty array; send at least one device")
		}
		if len(raws) > maxBulk {
			return nil, invalid("the body holds %d devices; at most %d per request", len(raws), maxBulk)
		}
	default:
		return nil, invalid("the body must be a device object or an array of device objects")
	}
	out := make([]newDevice, 0, len(raws))
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
		var nd newDevice
		if nd.name, _, err = o.str("name", true); err != nil {
			return nil, err
		}
		if err := checkDisplayName(where, nd.name); err != nil {
			return nil, err
		}
		if nd.description, _, err = o.str("description", false); err != nil {
			return nil, err
		}
		if err := checkText(where, "description", nd.description, maxDescription); err != nil {
			return nil, err
		}
		if nd.architecture, _, err = o.str("architecture", false); err != nil {
			return nil, err
		}
		if err := checkText(where, "architecture", nd.architecture, maxArchitecture); err != nil {
			return nil, err
		}
		if j, dup := names[nd.name]; dup {
			return nil, invalid("devices[%d] and devices[%d] are both named %q", j, i, nd.name)
		}
		names[nd.name] = i
		out = append(out, nd)
	}
	return out, nil
}

func (p *Platform) restCreateDevices(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return p.restWrite(func() (int, any, *apiError) {
		pr, err := p.pathProjectLocked(c)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, pr); err != nil {
			return 0, nil, err
		}
		specs, err := parseNewDevices(body)
		if err != nil {
			return 0, nil, err
		}
		for _, d := range p.st.devices {
			if d.project != pr {
				continue
			}
			for _, s := range specs {
				if s.name == d.name {
					return 0, nil, conflict(codeAlreadyExists, "device %q exists in project %d (device %d)", d.name, pr.key, d.key)
				}
			}
		}
		ds, cerr := p.createDevicesLocked(pr, specs)
		if cerr != nil { // cannot happen: names are checked
			return 0, nil, invalid("%v", cerr)
		}
		out := []deviceView{}
		for _, d := range ds {
			out = append(out, p.deviceViewLocked(d))
		}
		return http.StatusCreated, out, nil
	})
}

func (p *Platform) restDeleteDevice(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		pr, err := p.pathProjectLocked(c)
		if err != nil {
			return 0, nil, err
		}
		d, err := p.pathDeviceLocked(c, pr)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, pr); err != nil {
			return 0, nil, err
		}
		p.deleteDeviceLocked(d)
		return http.StatusNoContent, nil, nil
	})
}

func (p *Platform) restDeleteDevices(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		pr, err := p.pathProjectLocked(c)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, pr); err != nil {
			return 0, nil, err
		}
		keys, err := queryIDs(c.r)
		if err != nil {
			return 0, nil, err
		}
		var ds []*Device
		for _, k := range keys {
			d := p.st.devices[k]
			if d == nil || d.project != pr {
				return 0, nil, notFound("device %d not found in project %d; nothing was deleted", k, pr.key)
			}
			ds = append(ds, d)
		}
		for _, d := range ds {
			p.deleteDeviceLocked(d)
		}
		return http.StatusNoContent, nil, nil
	})
}
