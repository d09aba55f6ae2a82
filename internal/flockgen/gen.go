// This file holds the generator: the model of the whole file built from
// the templates, the names it takes in the package, and the rendering.

package flockgen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// gen generates one file.
type gen struct {
	cfg       Config
	own       *appTemplates
	providers []*provider
	problems  []string
	warnings  []string

	tables     []*table // own tables, then own transforms
	apps       []*consumedApp
	namespaces []namespace
	topics     []*topic
}

// namespace is a file namespace of the data template.
type namespace struct {
	name, field, desc string
}

func (n namespace) constName() string { return "Namespace" + n.field }

func newGen(cfg Config, own *appTemplates) *gen {
	return &gen{cfg: cfg, own: own, warnings: append([]string(nil), own.warnings...)}
}

// problem records a refusal; at is "file:line:col: " or "".
func (g *gen) problem(at, format string, a ...any) {
	g.problems = append(g.problems, at+fmt.Sprintf(format, a...))
}

// generate builds the model and renders the file.
func (g *gen) generate() (*Result, error) {
	if !token.IsIdentifier(g.cfg.Package) || token.IsKeyword(g.cfg.Package) || g.cfg.Package == "_" {
		g.problem("", "package name %q is not a Go identifier; give another with -pkg", g.cfg.Package)
	}
	g.buildTables()
	g.buildApps()
	g.buildNamespaces()
	g.buildTopics()
	g.packageNames()
	if len(g.problems) > 0 {
		return nil, &Error{Problems: g.problems}
	}
	var b bytes.Buffer
	g.render(&b)
	code, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("flockgen: the generated code does not parse (a bug of flockgen): %w\n%s", err, b.String())
	}
	return &Result{Code: code, Warnings: g.warnings}, nil
}

// buildTables models the app's own tables and transforms.
func (g *gen) buildTables() {
	d := g.own.data
	if d == nil {
		return
	}
	for i, tb := range d.Tables {
		base, ok := GoName(tb.Name)
		if !ok {
			g.problem(g.own.dataSrc.at("data", "tables", i, "tablename"), "table %q has no letter or digit to make a Go name of", tb.Name)
			continue
		}
		g.tables = append(g.tables, g.newTable(tb.Name, base, tb.Description, ownTable, tb.EntityKey, tb.Columns, g.own.dataSrc, "data", "tables", i))
	}
	for i, tr := range d.Transforms {
		base, ok := GoName(tr.Name)
		if !ok {
			g.problem(g.own.dataSrc.at("data", "transforms", i, "tablename"), "transform %q has no letter or digit to make a Go name of", tr.Name)
			continue
		}
		g.tables = append(g.tables, g.newTable(tr.Name, base, tr.Description, ownView, nil, tr.Columns, g.own.dataSrc, "data", "transforms", i))
	}
}

// buildApps models the consumed apps whose templates were given: their
// tables and transforms that are not private.
func (g *gen) buildApps() {
	for _, p := range g.providers {
		base, ok := GoName(p.name)
		if !ok {
			g.problem("", "consumed app %q has no letter or digit to make a Go name of", p.name)
			continue
		}
		app := &consumedApp{name: p.name, base: base}
		for i, tb := range p.data.Tables {
			if tb.Private {
				continue
			}
			name, _ := GoName(tb.Name)
			t := g.newTable(tb.Name, base+name, tb.Description, sharedTable, tb.EntityKey, tb.Columns, p.src, "data", "tables", i)
			t.app = app
			app.tables = append(app.tables, t)
		}
		for i, tr := range p.data.Transforms {
			if tr.Private {
				continue
			}
			name, _ := GoName(tr.Name)
			t := g.newTable(tr.Name, base+name, tr.Description, sharedView, nil, tr.Columns, p.src, "data", "transforms", i)
			t.app = app
			app.tables = append(app.tables, t)
		}
		fields := newScope("the fields of " + app.structName())
		for _, t := range app.tables {
			if err := fields.add(strings.TrimPrefix(t.base, base), t.what()); err != nil {
				g.problem(t.src.at(append(t.where, "tablename")...), "%v", err)
			}
		}
		g.apps = append(g.apps, app)
	}
}

// Names derived from a consumed app's base name.
func (a *consumedApp) structName() string { return a.base + "App" }
func (a *consumedApp) ctorFunc() string   { return "New" + a.base + "App" }
func (a *consumedApp) nameConst() string  { return a.base + "AppName" }

// buildNamespaces models the file namespaces.
func (g *gen) buildNamespaces() {
	d := g.own.data
	fields := newScope("the fields of FileNamespaces")
	for _, name := range d.NamespaceNames() {
		field, ok := GoName(name)
		if !ok {
			g.problem("", "namespace %q has no letter or digit to make a Go name of", name)
			continue
		}
		ns := namespace{name: name, field: field}
		where := []any{"files"}
		if d != nil && d.Files != nil {
			for i, n := range d.Files.Namespaces {
				if n.Name == name {
					ns.desc = n.Description
					where = []any{"files", "namespaces", i, "name"}
				}
			}
		}
		if err := fields.add(field, "namespace "+name); err != nil {
			g.problem(g.own.dataSrc.at(where...), "%s: %v", keyPath(where...), err)
		}
		g.namespaces = append(g.namespaces, ns)
	}
}

// packageNames takes every package-level name of the file and reports
// two things that would take the same one.
func (g *gen) packageNames() {
	pkg := newScope("package " + g.cfg.Package)
	take := func(at, name, owner string) {
		if err := pkg.add(name, owner); err != nil {
			g.problem(at, "%v", err)
		}
	}
	all := slices.Clone(g.tables)
	for _, a := range g.apps {
		at := g.own.dataSrc.at("consumes")
		take(at, a.structName(), "the handles of consumed app "+a.name)
		take(at, a.ctorFunc(), "the constructor of consumed app "+a.name)
		take(at, a.nameConst(), "the name of consumed app "+a.name)
		all = append(all, a.tables...)
	}
	for _, t := range all {
		at := t.src.at(append(t.where, "tablename")...)
		for _, n := range t.exported() {
			take(at, n[0], n[1])
		}
	}
	if len(g.namespaces) > 0 {
		take("", "FileNamespaces", "the file namespaces")
		take("", "NewFileNamespaces", "the constructor of the file namespaces")
		for _, ns := range g.namespaces {
			take(g.own.dataSrc.at("files"), ns.constName(), "namespace "+ns.name)
		}
	}
	if len(g.topics) > 0 {
		take("", "AgentTools", "the agent tools")
		take("", "ServeAgentTools", "the server of the agent tools")
		for _, tp := range g.topics {
			for _, st := range tp.structs {
				take(g.toolAt(tp.agent, tp.tool.Name), st.name, "an argument type of topic "+tp.name)
			}
		}
	}
}

// imports returns the packages the file uses.
func (g *gen) imports() []string {
	use := map[string]bool{}
	for _, t := range g.allTables() {
		use["github.com/flockgo/ironflock/client"] = true
		use["github.com/flockgo/ironflock/typed"] = true
		if len(t.cols) > 0 {
			use["fmt"] = true
		}
		for _, c := range t.cols {
			switch {
			case c.secret:
				use["github.com/flockgo/ironflock/secrets"] = true
			case c.typ == template.TypeJSON:
				use["encoding/json"] = true
			case c.typ == template.TypeTimestamp:
				use["time"] = true
			}
		}
		if t.secret {
			use["context"] = true
		}
	}
	if len(g.apps) > 0 {
		use["github.com/flockgo/ironflock/crossapp"] = true
	}
	if len(g.namespaces) > 0 {
		use["github.com/flockgo/ironflock/files"] = true
		use["github.com/flockgo/ironflock/typed"] = true
	}
	if len(g.topics) > 0 {
		use["context"] = true
		use["github.com/flockgo/ironflock/agent"] = true
		use["github.com/flockgo/ironflock/client"] = true
		for _, tp := range g.topics {
			for _, st := range tp.structs {
				for _, f := range st.fields {
					if strings.Contains(f.typ, "time.Time") {
						use["time"] = true
					}
				}
			}
		}
	}
	out := make([]string, 0, len(use))
	for p := range use {
		out = append(out, p)
	}
	// The standard library first, as goimports groups them.
	slices.SortFunc(out, func(a, b string) int {
		if sa, sb := !strings.Contains(a, "."), !strings.Contains(b, "."); sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// allTables returns the own tables and those of the consumed apps.
func (g *gen) allTables() []*table {
	all := slices.Clone(g.tables)
	for _, a := range g.apps {
		all = append(all, a.tables...)
	}
	return all
}
