// This file serves the row editor of the table browser (write mode):
//
//	GET  /tables/{realm}/{table}/row  a form built from the table's columns and
//	                                  types; with entity=1 and k.<column>=… for each
//	                                  column of the entity key (absent: NULL),
//	                                  prefilled from that entity's latest row, to
//	                                  change it or mark it deleted
//	POST /tables/{realm}/{table}/row  appends the row (needs Config.Write)
//
// An edit never changes a stored row: it appends one, as a device's
// append does, with the platform's rules (fleetdb.DB.AppendRows): values
// typed by their column, a row needs tsp, and on an entity table the
// columns a row leaves out are taken from the entity's latest row, so an
// empty field keeps the entity's value (a secret too). The row is written
// as the chosen device of the realm (picked from a list when the realm
// has at most listCap devices, its key typed otherwise, capped.go) and
// published on transformed.<table>
// as its append would be; a realm's storage refusal (a fault the router
// answers) does not apply to it. Marking
// deleted appends the entity with its boolean column "deleted" true:
// readers that combine the latest marker with deleted = false no longer
// see the entity.

package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// deletedColumn is the boolean column that marks an entity deleted.
const deletedColumn = "deleted"

// rowField is one input of the row form.
type rowField struct {
	ID, Name, Type string
	Secret         bool
	Key            bool // part of the entity key: fixed when editing
	Value          string
}

// realmDevice is a device the row can be written as.
type realmDevice struct {
	Key    int
	Name   string
	Serial string
}

type rowFormView struct {
	Realm, Table string
	App          string // the realm's app, for error messages
	EntityKey    []string
	Edit         bool // the form changes an entity's latest row
	Fields       []rowField
	Devices      []realmDevice // every device of the realm, when it has at most listCap (a list to pick from)
	DeviceCount  int           // the devices of the realm
	KeyInput     bool          // the realm has more than listCap devices: the device's key is typed
	AllDevices   string        // the paged, searchable list of the realm's devices
	Device       int           // the device chosen
	DeviceInput  string        // the key typed, kept when refused
	CanDelete    bool
	Err          string
	ReadOnly     string
	Back         string // the table page
}

// rowTable finds a declared table of a realm (not error-logs: the
// platform writes it).
func (c *Console) rowTable(realm, name string) (template.Table, error) {
	defs, err := c.tableDefs(realm)
	if err != nil {
		return template.Table{}, err
	}
	i := slices.IndexFunc(defs, func(t template.Table) bool { return t.Name == name })
	if i < 0 {
		return template.Table{}, fmt.Errorf("realm %s has no table %s", realm, name)
	}
	if name == template.ErrorLogsName {
		return template.Table{}, fmt.Errorf("table %s is written by the platform, not from the console", name)
	}
	return defs[i], nil
}

// realmDevices returns the devices a realm's app is installed on (all of
// them when there are at most listCap, none otherwise), how many there
// are, and the app's key and name.
func (c *Console) realmDevices(realmName string) (devices []realmDevice, total, appKey int, app string) {
	c.cfg.Registry.Do(func(s *registry.State) {
		ri, ok := s.Realm(realmName)
		if !ok {
			return
		}
		appKey = ri.App
		if a := s.App(ri.App); a != nil {
			app = a.Name
		}
		var first []*registry.Installation
		if first, total = s.RealmInstalls(realmName, listCap); total > listCap {
			return
		}
		for _, in := range first {
			devices = append(devices, realmDevice{Key: in.Device.Key, Name: in.Device.Name, Serial: in.Device.Serial})
		}
	})
	return devices, total, appKey, app
}

// realmDevice returns the device with key that realm's app is installed
// on.
func (c *Console) realmDevice(realmName string, key int) (d realmDevice, ok bool) {
	c.cfg.Registry.Do(func(s *registry.State) {
		ri, found := s.Realm(realmName)
		if !found {
			return
		}
		if in := s.Installation(key, ri.App, ri.Stage); in != nil && in.Realm == realmName {
			d, ok = realmDevice{Key: in.Device.Key, Name: in.Device.Name, Serial: in.Device.Serial}, true
		}
	})
	return d, ok
}

// rowForm builds the form of a table, its fields empty.
func (c *Console) rowForm(realm string, t template.Table) rowFormView {
	devices, total, appKey, app := c.realmDevices(realm)
	v := rowFormView{Realm: realm, Table: t.Name, App: app, EntityKey: t.EntityKey, Devices: devices,
		DeviceCount: total, KeyInput: total > listCap, AllDevices: realmDevicesLink(appKey, realm),
		Back: "/tables/" + url.PathEscape(realm) + "/" + url.PathEscape(t.Name)}
	for _, col := range t.Columns {
		v.Fields = append(v.Fields, rowField{ID: col.ID, Name: col.Name, Type: string(col.Type), Secret: col.Secret,
			Key: slices.Contains(t.EntityKey, col.ID)})
		if col.ID == deletedColumn && col.Type == template.TypeBoolean && len(t.EntityKey) > 0 {
			v.CanDelete = true
		}
	}
	for _, k := range t.EntityKey { // device_key or authid may be keys too
		if k == "device_key" || k == "authid" {
			typ := "bigint"
			if k == "authid" {
				typ = "string"
			}
			v.Fields = append(v.Fields, rowField{ID: k, Name: k, Type: typ, Key: true})
		}
	}
	if len(v.Devices) > 0 {
		v.Device = v.Devices[0].Key
	}
	if !c.cfg.Write {
		v.ReadOnly = readOnlyText
	}
	return v
}

func (c *Console) rowEditor(w http.ResponseWriter, r *http.Request) {
	realm := r.PathValue("realm")
	t, err := c.rowTable(realm, r.PathValue("table"))
	if err != nil {
		c.fail(w, r, http.StatusNotFound, err.Error()+".")
		return
	}
	v := c.rowForm(realm, t)
	q := r.URL.Query()
	if len(t.EntityKey) > 0 && q.Get("entity") == "1" {
		if err := c.prefill(&v, q); err != nil {
			c.fail(w, r, http.StatusNotFound, err.Error()+".")
			return
		}
	}
	c.render(w, "row", v.title(), "/tables", v)
}

func (v rowFormView) title() string {
	if v.Edit {
		return "Change an entity of " + v.Table
	}
	return "Add a row to " + v.Table
}

// prefill fills the form from the latest row of the entity that q's
// k.<column> name.
func (c *Console) prefill(v *rowFormView, q url.Values) error {
	filter := []any{map[string]any{"latest": true}}
	for _, k := range v.EntityKey {
		f := v.field(k)
		s := q.Get("k." + k)
		if !q.Has("k." + k) {
			filter = append(filter, map[string]any{"column": k, "operator": "IS NULL"})
			continue
		}
		val, _, err := f.parse(s)
		if err != nil {
			return fmt.Errorf("entity key %s", err)
		}
		filter = append(filter, map[string]any{"column": k, "operator": "=", "value": val})
	}
	rows, err := c.cfg.Fleet.Read(v.Realm, v.Table, map[string]any{"limit": int64(1), "filterAnd": filter})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("table %s of realm %s has no entity %s", v.Table, v.Realm, q.Encode())
	}
	row := rows[0]
	v.Edit = true
	for i := range v.Fields {
		f := &v.Fields[i]
		switch {
		case f.ID == "tsp" || f.Secret:
			continue // a new time; a secret stays as it is unless given
		case f.Type == string(template.TypeTimestamp):
			if ms, ok := row[f.ID].(int64); ok {
				f.Value = time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
			}
		case row[f.ID] != nil:
			if s, ok := row[f.ID].(string); ok {
				f.Value = s
			} else {
				f.Value = compactJSON(row[f.ID])
			}
		}
	}
	if dk, ok := row["device_key"].(int64); ok {
		if _, runs := c.realmDevice(v.Realm, int(dk)); runs {
			v.Device = int(dk)
		}
	}
	return nil
}

// field returns the form's field id.
func (v *rowFormView) field(id string) *rowField {
	for i := range v.Fields {
		if v.Fields[i].ID == id {
			return &v.Fields[i]
		}
	}
	return &rowField{ID: id, Type: "string"}
}

// parse reads a field's text as its column's type; empty is absent.
func (f *rowField) parse(s string) (any, bool, error) {
	if strings.TrimSpace(s) == "" {
		return nil, false, nil
	}
	t := strings.TrimSpace(s)
	switch f.Type {
	case string(template.TypeNumeric):
		x, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, false, fmt.Errorf("column %q: %q is not a number", f.ID, t)
		}
		return x, true, nil
	case string(template.TypeBigint):
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("column %q: %q is not a whole number", f.ID, t)
		}
		return n, true, nil
	case string(template.TypeBoolean):
		b, err := strconv.ParseBool(t)
		if err != nil {
			return nil, false, fmt.Errorf("column %q: %q is not true or false", f.ID, t)
		}
		return b, true, nil
	case string(template.TypeJSON):
		var x any
		if err := json.Unmarshal([]byte(t), &x); err != nil {
			return nil, false, fmt.Errorf("column %q: not JSON: %v", f.ID, err)
		}
		return x, true, nil
	case string(template.TypeTimestamp):
		return t, true, nil // the platform reads an ISO time as an append does
	}
	return s, true, nil
}

func (c *Console) rowAppend(w http.ResponseWriter, r *http.Request) {
	if !c.writable(w, r) {
		return
	}
	realm := r.PathValue("realm")
	t, err := c.rowTable(realm, r.PathValue("table"))
	if err != nil {
		c.fail(w, r, http.StatusNotFound, err.Error()+".")
		return
	}
	if err := r.ParseForm(); err != nil {
		c.fail(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
		return
	}
	v := c.rowForm(realm, t)
	v.Edit = r.PostForm.Get("edit") == "1"
	row := map[string]any{}
	for i := range v.Fields {
		f := &v.Fields[i]
		f.Value = r.PostForm.Get("c." + f.ID)
		val, present, ferr := f.parse(f.Value)
		if ferr != nil && v.Err == "" {
			v.Err = ferr.Error()
		}
		if present {
			row[f.ID] = val
		}
	}
	if r.PostForm.Get("action") == "delete" {
		if !v.CanDelete {
			v.Err = "table " + t.Name + " has no boolean column " + deletedColumn + " to mark an entity deleted with"
		}
		row[deletedColumn] = true
	}
	if _, ok := row["tsp"]; !ok && v.Err == "" {
		row["tsp"] = c.cfg.Clock.Now().UTC().Format(time.RFC3339Nano) // the row's time: now, as the form says
	}
	given := strings.TrimSpace(r.PostForm.Get("device"))
	v.DeviceInput = given
	key, kerr := strconv.Atoi(given)
	d, runs := c.realmDevice(realm, key)
	switch {
	case v.Err != "":
	case kerr != nil:
		v.Err = fmt.Sprintf("field device: %q is not a device key", given)
	case !runs:
		v.Err = fmt.Sprintf("field device: no device with key %d runs the app of realm %s", key, realm)
	}
	if kerr == nil {
		v.Device = key
	}
	what := fmt.Sprintf("append to %s of %s", t.Name, realm)
	if v.Err == "" {
		what += " as " + d.Name + ": " + compactJSON(masked(row, t))
		wr := fleetdb.Writer{DeviceKey: int64(d.Key), Serial: d.Serial, App: v.App}
		if err := c.cfg.Fleet.AppendRows(r.Context(), realm, t.Name, wr, row); err != nil {
			v.Err = err.Error()
			c.logAction(what, "refused: "+err.Error())
		}
	}
	if v.Err != "" {
		c.renderStatus(w, http.StatusUnprocessableEntity, "row", v.title(), "/tables", v)
		return
	}
	c.logAction(what, "appended")
	back := v.Back
	if v.Edit {
		back += "?latest=1"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// masked returns row with its secret values hidden, for the action log.
func masked(row map[string]any, t template.Table) map[string]any {
	out := make(map[string]any, len(row))
	for k, v := range row {
		out[k] = v
		if i := slices.IndexFunc(t.Columns, func(c template.Column) bool { return c.ID == k }); i >= 0 && t.Columns[i].Secret {
			out[k] = "(secret)"
		}
	}
	return out
}

// entityLink is the row editor of a row's entity, "" when a key value
// cannot travel in a link.
func entityLink(realm, table string, key []string, row map[string]any) string {
	q := url.Values{"entity": {"1"}} // a key left out is NULL
	for _, k := range key {
		switch x := row[k].(type) {
		case nil:
		case string:
			q.Set("k."+k, x)
		case int64, float64, bool:
			q.Set("k."+k, compactJSON(x))
		default:
			return ""
		}
	}
	return "/tables/" + url.PathEscape(realm) + "/" + url.PathEscape(table) + "/row?" + q.Encode()
}
