// This file holds who may do what (docs/wire.md §7.15, fleetfiles' role
// matrix): role app everything; app_reader (a consuming app) reads, and
// not private namespaces; board_reader reads; board_writer everything
// but delete; a call without a disclosed role is refused ("undisclosed
// caller"). An unknown namespace is reported before the role is looked
// at. Refusals are NOT_AUTHORIZED.
//
// The fake also checks, on every call of role app, that the caller's
// device still has the app installed in the realm's stage: the fake's
// router keeps a session joined after Uninstall, where the real platform
// stops authorizing it once its verdict cache expires. It serves no URI.

package fleetfiles

import (
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// Roles of the platform's dashboards.
const (
	roleBoardReader = "board_reader"
	roleBoardWriter = "board_writer"
)

// call is one invocation of a files.* procedure.
type call struct {
	b            *bucket
	req          request
	role, serial string // caller_authrole, caller_authid
	now          time.Time
}

// namespace reads a namespace field, checks that it exists and that the
// caller may do what it intends there.
func (c *call) namespace(field string, what access) (*template.Namespace, *failure) {
	name, f := c.req.namespace(field)
	if f != nil {
		return nil, f
	}
	ns, f := c.b.namespace(name)
	if f != nil {
		return nil, f
	}
	return ns, c.allow(what, ns)
}

// key reads the key field and checks the key rules.
func (c *call) key(field string) (string, *failure) {
	key, f := c.req.str(field, "")
	if f != nil {
		return "", f
	}
	if msg := checkKey(key); msg != "" {
		return "", refuse(wire.FileInvalidKey, "%s", msg)
	}
	return key, nil
}

// target reads the namespace and key fields of a call on one object and
// checks both, and the caller's right to do what it intends.
func (c *call) target(what access) (*template.Namespace, string, *failure) {
	ns, f := c.namespace(wire.FieldNamespace, what)
	if f != nil {
		return nil, "", f
	}
	key, f := c.key(wire.FieldKey)
	if f != nil {
		return nil, "", f
	}
	return ns, key, nil
}

// contentType reads the content_type field: application/octet-stream
// when absent or "".
func (c *call) contentType() (string, *failure) {
	ct, f := c.req.str(wire.FieldContentType, "")
	if ct == "" && f == nil {
		ct = defaultContentType
	}
	return ct, f
}

// allow applies the role matrix to an action on ns (nil: no namespace).
func (c *call) allow(what access, ns *template.Namespace) *failure {
	switch c.role {
	case wire.RoleApp:
		return c.installed()
	case wire.RoleAppReader:
		if what != accessRead {
			return refuse(wire.FileNotAuthorized, "a consuming app may only read files")
		}
		if ns != nil && ns.Private {
			return refuse(wire.FileNotAuthorized, "namespace %q is private to the app", ns.Name)
		}
	case roleBoardReader:
		if what != accessRead {
			return refuse(wire.FileNotAuthorized, "role %s may only read files", c.role)
		}
	case roleBoardWriter:
		if what == accessDelete {
			return refuse(wire.FileNotAuthorized, "role %s may not delete files", c.role)
		}
	case "":
		return refuse(wire.FileNotAuthorized, "undisclosed caller")
	default:
		return refuse(wire.FileNotAuthorized, "role %q may not use the file service", c.role)
	}
	return nil
}

// installed checks that the calling device has the realm's app installed
// in the realm's stage.
func (c *call) installed() *failure {
	ri := c.b.ri
	ok := false
	c.b.svc.cfg.Registry.Do(func(s *registry.State) {
		if d := s.DeviceBySerial(c.serial); d != nil {
			ok = s.Installation(d.Key, ri.App, ri.Stage) != nil
		}
	})
	if !ok {
		return refuse(wire.FileNotAuthorized, "device %q does not have the app installed in %s", c.serial, ri.Stage)
	}
	return nil
}
