// This file serves the table browser:
//
//	GET /tables                  every realm with its tables and their row counts,
//	                             the first of its devices (capped.go) and its
//	                             transforms (transforms.go)
//	GET /tables/{realm}/{table}  the rows, newest first: ?offset=, ?limit=
//	                             (1–500, default 50), ?latest=1 (entity
//	                             tables: the latest row of each entity); and a
//	                             chart of a numeric column (chart.go); the
//	                             values and rows writes lost (keys no
//	                             column reads, publications without tsp)
//
// Rows are read as the platform's own session reads them
// (fleetdb.Read): secret columns come masked, private tables and
// error-logs are shown.

package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// Paging of the table browser.
const (
	defaultPageRows = 50
	maxPageRows     = 500
)

// secretMask is what a masked secret value shows.
const secretMask = "•••• (secret)"

type tableRef struct {
	Name    string
	Rows    int
	Private bool
	Entity  bool
	Lost    int64 // rows that lost a key or were dropped (fleetdb.DB.Dropped)
}

type realmTables struct {
	Realm, App, Stage string
	Devices           someDevices // capped.go
	Tables            []tableRef
	Transforms        []transformRef // transforms.go
	Write             bool           // the refresh buttons work (Config.Write)
	Err               string
}

// realmsOf returns the realms an installation joins, in name order,
// with their app, stage and the first of their devices (capped.go).
func (c *Console) realmsOf() []realmTables {
	var out []realmTables
	c.cfg.Registry.Do(func(s *registry.State) {
		for _, ri := range s.Realms() { // by name
			devices := realmDevicesOf(s, ri.Name, ri.App)
			if devices.Total == 0 {
				continue
			}
			app := ""
			if a := s.App(ri.App); a != nil {
				app = a.Name
			}
			out = append(out, realmTables{Realm: ri.Name, App: app, Stage: ri.Stage, Devices: devices})
		}
	})
	return out
}

// tableDefs returns the declared tables of a realm and error-logs.
func (c *Console) tableDefs(realm string) ([]template.Table, error) {
	_, tpl, err := c.cfg.Lookup(realm)
	if err != nil {
		return nil, err
	}
	var out []template.Table
	if tpl != nil {
		out = append(out, tpl.Tables...)
	}
	return append(out, template.ErrorLogsTable()), nil
}

func (c *Console) tables(w http.ResponseWriter, r *http.Request) {
	realms := c.realmsOf()
	for i := range realms {
		defs, err := c.tableDefs(realms[i].Realm)
		if err != nil {
			realms[i].Err = err.Error()
			continue
		}
		for _, t := range defs {
			ext, _ := c.cfg.Fleet.Extent(realms[i].Realm, t.Name)
			ref := tableRef{Name: t.Name, Rows: ext.Rows, Private: t.Private, Entity: len(t.EntityKey) > 0}
			for _, d := range c.cfg.Fleet.Dropped(realms[i].Realm, t.Name) {
				ref.Lost += d.Rows
			}
			realms[i].Tables = append(realms[i].Tables, ref)
		}
		realms[i].Write = c.cfg.Write
	}
	c.transformsView(realms) // transforms.go
	c.render(w, "tables", "Tables", "/tables", realms)
}

type columnView struct {
	ID, Name string
	Type     string
	Secret   bool
	Numeric  bool
}

type rowView struct {
	Cells []string
	Edit  string // the row editor of the row's entity (rows.go), latest view in write mode
}

type tableView struct {
	Realm, Table string
	Description  string
	Private      bool
	EntityKey    []string
	Latest       bool
	Columns      []columnView
	Rows         []rowView
	Extent       fleetdb.Extent
	Offset       int
	Limit        int
	First, Last  int // 1-based positions of the rows shown
	Prev, Next   string
	Err          string
	Chart        *chartView
	Dropped      []fleetdb.DropCount // what writes lost (unknown keys, rows without tsp)
	Write        bool                // rows can be added and entities changed (rows.go)
	Editable     bool                // the rows carry links to change their entity
}

// RefreshMillis is how often the page redraws its rows while it is open.
func (v tableView) RefreshMillis() int { return chartRefresh }

func (c *Console) table(w http.ResponseWriter, r *http.Request) {
	realm, name := r.PathValue("realm"), r.PathValue("table")
	defs, err := c.tableDefs(realm)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, err.Error())
		return
	}
	i := slices.IndexFunc(defs, func(t template.Table) bool { return t.Name == name })
	if i < 0 {
		c.fail(w, r, http.StatusNotFound, "Realm "+realm+" has no table "+name+".")
		return
	}
	def := defs[i]
	q := r.URL.Query()
	v := tableView{Realm: realm, Table: name, Description: def.Description, Private: def.Private,
		EntityKey: def.EntityKey, Latest: q.Get("latest") == "1" && len(def.EntityKey) > 0,
		Offset: max(atoiOr(q.Get("offset"), 0), 0), Limit: min(max(atoiOr(q.Get("limit"), defaultPageRows), 1), maxPageRows)}
	v.Write = c.cfg.Write && name != template.ErrorLogsName
	v.Editable = v.Write && v.Latest
	v.Extent, _ = c.cfg.Fleet.Extent(realm, name)
	v.Dropped = c.cfg.Fleet.Dropped(realm, name)
	for _, col := range def.Columns {
		v.Columns = append(v.Columns, columnView{ID: col.ID, Name: col.Name, Type: string(col.Type), Secret: col.Secret,
			Numeric: col.Type == template.TypeNumeric || col.Type == template.TypeBigint})
	}
	v.Columns = append(v.Columns, columnView{ID: "device_key", Name: "Device key", Type: "bigint"},
		columnView{ID: "authid", Name: "Authid", Type: "string"})
	query := map[string]any{"limit": int64(v.Limit + 1), "offset": int64(v.Offset)}
	if v.Latest {
		query["filterAnd"] = []any{map[string]any{"latest": true}}
	}
	rows, err := c.cfg.Fleet.Read(realm, name, query)
	if err != nil {
		v.Err = err.Error()
	}
	more := len(rows) > v.Limit
	if more {
		rows = rows[:v.Limit]
	}
	for _, row := range rows {
		rv := rowView{}
		for _, col := range v.Columns {
			val := row[col.ID]
			switch {
			case col.Secret && val != nil:
				rv.Cells = append(rv.Cells, secretMask)
			case col.Type == string(template.TypeTimestamp):
				rv.Cells = append(rv.Cells, showMillis(val))
			default:
				rv.Cells = append(rv.Cells, showCell(val))
			}
		}
		if v.Editable {
			rv.Edit = entityLink(realm, name, def.EntityKey, row)
		}
		v.Rows = append(v.Rows, rv)
	}
	if len(rows) > 0 {
		v.First, v.Last = v.Offset+1, v.Offset+len(rows)
	}
	page := func(off int) string {
		p := url.Values{"offset": {strconv.Itoa(off)}, "limit": {strconv.Itoa(v.Limit)}}
		if v.Latest {
			p.Set("latest", "1")
		}
		return "?" + p.Encode()
	}
	if v.Offset > 0 {
		v.Prev = page(max(v.Offset-v.Limit, 0))
	}
	if more {
		v.Next = page(v.Offset + v.Limit)
	}
	v.Chart = c.chart(realm, name, v.Columns, v.Extent, q)
	c.render(w, "table", name+" · "+realm, "/tables", v)
}

// appPage is an app's page: the app and links to its tables.
type appPage struct {
	appView
	TableLinks []appTable
}

// appTable is a table of an app with the realms it lives in (one per
// project and stage the app is installed in).
type appTable struct {
	Name   string
	Realms []string
}

// tableLinks returns the app's tables and error-logs with the realms of its
// installations, so that its page links to each table page.
func tableLinks(a appView) []appTable {
	realms := slices.Sorted(slices.Values(a.Realms))
	var out []appTable
	for _, t := range append(slices.Clone(a.Tables), template.ErrorLogsName) {
		out = append(out, appTable{Name: t, Realms: realms})
	}
	return out
}

// atoiOr reads an integer, def when s is empty or not one.
func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}
