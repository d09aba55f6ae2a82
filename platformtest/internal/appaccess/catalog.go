// This file holds the catalog of a provider: what it shares with
// consumers, per stage.

package appaccess

import (
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// describe returns the provider info {provider_app_key, stages} of an app
// with data template src and data backends in realms. A stage appears only
// where the provider has a backend and shares a table or a transform.
func describe(key int, src string, realms []realm.Info) (map[string]any, error) {
	tpl, err := registry.ParseDataTemplate(src)
	if err != nil {
		return nil, err
	}
	stages := map[string]any{}
	if cat := catalog(tpl); cat != nil {
		for _, ri := range realms {
			stages[strings.ToLower(ri.Stage)] = cat
		}
	}
	return map[string]any{"provider_app_key": int64(key), "stages": stages}, nil
}

// catalog returns {tables, transforms} of the shared (not private) tables
// and transforms of tpl, or nil when it shares nothing.
func catalog(tpl *template.DataTemplate) map[string]any {
	if tpl == nil {
		return nil
	}
	tables, transforms := []any{}, []any{}
	for _, t := range tpl.Tables {
		if !t.Private {
			tables = append(tables, entry(t.Name, t.Description, t.Columns))
		}
	}
	for _, t := range tpl.Transforms {
		if !t.Private {
			transforms = append(transforms, entry(t.Name, t.Description, t.Columns))
		}
	}
	if len(tables) == 0 && len(transforms) == 0 {
		return nil
	}
	return map[string]any{"tables": tables, "transforms": transforms}
}

// entry is one catalog entry with its columns as the template declares
// them.
func entry(name, description string, cols []template.Column) map[string]any {
	e := map[string]any{"tablename": name}
	if description != "" {
		e["description"] = description
	}
	columns := make([]any, 0, len(cols))
	for _, c := range cols {
		col := map[string]any{"id": c.ID, "name": c.Name, "description": c.Description, "dataType": string(c.Type)}
		if c.Path != "" && c.Path != template.DefaultPath(c.ID) {
			col["path"] = c.Path
		}
		if c.Secret {
			col["secret"] = true
		}
		columns = append(columns, col)
	}
	e["columns"] = columns
	return e
}
