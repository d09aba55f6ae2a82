package fleetfiles

import (
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/template"
)

// TestRoleMatrix: who may read, write and delete, and where.
func TestRoleMatrix(t *testing.T) {
	open := &template.Namespace{Name: "default"}
	private := &template.Namespace{Name: "archive", Private: true}
	for _, tc := range []struct {
		role       string
		ns         *template.Namespace
		read       bool
		write, del bool
	}{
		{wire.RoleAppReader, open, true, false, false},
		{wire.RoleAppReader, private, false, false, false},
		{roleBoardReader, private, true, false, false},
		{roleBoardWriter, open, true, true, false},
		{"", open, false, false, false},
		{"svc_other", open, false, false, false},
	} {
		c := &call{role: tc.role}
		for what, want := range map[access]bool{accessRead: tc.read, accessWrite: tc.write, accessDelete: tc.del} {
			f := c.allow(what, tc.ns)
			if (f == nil) != want || (f != nil && f.code != wire.FileNotAuthorized) {
				t.Errorf("role %q, namespace %s, access %d: %v, want allowed %v", tc.role, tc.ns.Name, what, f, want)
			}
		}
	}
}
