package template

import (
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// File names of the templates, inside the Dir folder of an app.
const (
	// Dir is the folder of an app that holds its templates.
	Dir = ".ironflock"
	// DataTemplateFile is the file name of the data template.
	DataTemplateFile = "data-template.yml"
	// AgentTemplateFile is the file name of the agent template.
	AgentTemplateFile = "ai-template.yml"
)

// DataTemplate is a parsed and validated .ironflock/data-template.yml
// (package template). Defaults are applied: every column has a Path, every
// namespace its content types, size limit, share mode and link lifetime.
//
// A nil *DataTemplate is valid and stands for an app without a data
// template: it has only the system table and the "default" namespace.
type DataTemplate struct {
	// Tables are the declared tables in file order. The system table
	// "error-logs" is not among them; Table finds it.
	Tables []Table
	// Transforms are the declared transforms (SQL views) in file order.
	Transforms []Transform
	// Consumes lists the apps whose data this app reads.
	Consumes []Consume
	// Files is the managed file storage section, nil when absent.
	Files *Files
}

// Consume is one entry of consumes: a provider app whose tables this app
// may read.
type Consume struct {
	// App is the provider app name as written, or "*" for every
	// non-platform app of the project. Compare it case-insensitively.
	App string
	// Reason says why the data is needed; shown to the project admin.
	Reason string
}

// ParseData parses and validates a data template. It returns every finding
// in document order. When any finding has SeverityError the template is nil
// and err is an *Error holding the findings; warnings alone do not fail.
func ParseData(src []byte) (*DataTemplate, []Finding, error) {
	c := &checker{file: DataTemplateFile}
	t := c.dataTemplate(src)
	fs := c.sorted()
	if hasErrors(fs) {
		return nil, fs, &Error{File: c.file, Findings: fs}
	}
	return t, fs, nil
}

// Table returns the table of that name; "error-logs" gives the system table
// of ErrorLogsTable. The result points into t.
func (t *DataTemplate) Table(name string) (*Table, bool) {
	if name == ErrorLogsName {
		el := ErrorLogsTable()
		return &el, true
	}
	if t == nil {
		return nil, false
	}
	for i := range t.Tables {
		if t.Tables[i].Name == name {
			return &t.Tables[i], true
		}
	}
	return nil, false
}

// Transform returns the transform of that name. The result points into t.
func (t *DataTemplate) Transform(name string) (*Transform, bool) {
	if t == nil {
		return nil, false
	}
	for i := range t.Transforms {
		if t.Transforms[i].Name == name {
			return &t.Transforms[i], true
		}
	}
	return nil, false
}

// TableNames returns the names of the declared tables and of the system
// table "error-logs", sorted.
func (t *DataTemplate) TableNames() []string {
	names := []string{ErrorLogsName}
	if t != nil {
		for _, tb := range t.Tables {
			names = append(names, tb.Name)
		}
	}
	slices.Sort(names)
	return names
}

var dataRootKeys = []string{"data", "consumes", "files"}

// dataTemplate walks the whole document.
func (c *checker) dataTemplate(src []byte) *DataTemplate {
	root := c.parseDocument(src)
	if root == nil {
		if !hasErrors(c.findings) {
			c.errorf(&yaml.Node{Line: 1, Column: 1}, "", "empty template; a data template is a mapping with the key data (holding tables and transforms) and optionally consumes and files")
		}
		return nil
	}
	m := c.mapping(root, "", "a mapping with the keys data, consumes and files")
	if m == nil {
		return nil
	}
	c.unknownKeys(m, dataRootKeys)
	t := &DataTemplate{}
	if d := c.required(m, "data", "it holds tables and transforms"); d != nil {
		c.data(d, t)
	}
	if v := m.value("consumes"); v != nil {
		t.Consumes = c.consumes(v, "consumes")
	}
	if v := m.value("files"); v != nil {
		t.Files = c.files(v, "files")
	}
	return t
}

var dataKeys = []string{"tables", "transforms"}

// data walks data.tables and data.transforms and checks that their names
// are unique across both lists.
func (c *checker) data(n *yaml.Node, t *DataTemplate) {
	m := c.mapping(n, "data", "a mapping with the keys tables and transforms")
	if m == nil {
		return
	}
	c.unknownKeys(m, dataKeys)
	names := map[string]*yaml.Node{}
	unique := func(name string, at *yaml.Node, path string) {
		if name == "" {
			return
		}
		if prev, dup := names[name]; dup {
			c.errorf(at, path, "duplicate name %q (first at line %d); table and transform names must be unique", name, prev.Line)
			return
		}
		names[name] = at
	}
	if v := m.value("tables"); v != nil {
		items, _ := c.sequence(v, "data.tables", "a list of tables")
		for i, it := range items {
			p := indexPath("data.tables", i)
			tb, at, ok := c.table(it, p)
			unique(tb.Name, at, keyPath(p, "tablename"))
			if ok {
				t.Tables = append(t.Tables, tb)
			}
		}
	}
	if v := m.value("transforms"); v != nil {
		items, _ := c.sequence(v, "data.transforms", "a list of transforms")
		for i, it := range items {
			p := indexPath("data.transforms", i)
			tr, at, ok := c.transform(it, p)
			unique(tr.Name, at, keyPath(p, "tablename"))
			if ok {
				t.Transforms = append(t.Transforms, tr)
			}
		}
	}
	if isEmptyList(m.value("tables")) && isEmptyList(m.value("transforms")) {
		c.warnf(m.node, "data", "declares no tables or transforms; the app's data backend stays empty")
	}
}

// consumeApp is the pattern of consumes[].app.
var consumeApp = regexp.MustCompile(`^(\*|[A-Za-z0-9._-]+)$`)

var consumeKeys = []string{"app", "reason"}

// consumes walks the consumes list.
func (c *checker) consumes(n *yaml.Node, path string) []Consume {
	items, _ := c.sequence(n, path, `a list of entries like {app: weather, reason: "..."}`)
	var out []Consume
	seen := map[string]*yaml.Node{}
	for i, it := range items {
		p := indexPath(path, i)
		m := c.mapping(it, p, `a mapping with the keys app and reason (write app: "*" for every app)`)
		if m == nil {
			continue
		}
		c.unknownKeys(m, consumeKeys)
		var e Consume
		ok := true
		if v := c.required(m, "app", `name the provider app, or "*" in quotes for every app of the project`); v != nil {
			e.App, ok = c.text(v, keyPath(p, "app"))
			switch low := strings.ToLower(e.App); {
			case !ok:
			case !consumeApp.MatchString(e.App):
				c.errorf(v, keyPath(p, "app"), `invalid app name %q; allowed: "*" or letters, digits, ".", "_" and "-"`, e.App)
				ok = false
			case seen[low] != nil:
				c.errorf(v, keyPath(p, "app"), "app %q is already consumed (line %d); each app may appear once, compared case-insensitively", e.App, seen[low].Line)
				ok = false
			default:
				seen[low] = v
			}
		} else {
			ok = false
		}
		c.optText(m, "reason", &e.Reason)
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// isEmptyList reports whether n is absent or a list without items.
func isEmptyList(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.SequenceNode && len(n.Content) == 0)
}
