// This file holds what the platform's discovery says about a provider:
// ProviderInfo, its Catalog per stage with Entry and Column, and their
// decoding from the answers of sys.appaccess.resolve and .list.

package crossapp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/client"
)

// ProviderInfo describes a provider app: an entry of List, and what
// Connect resolves.
type ProviderInfo struct {
	// App is the provider's name: in lower case from List, as the caller
	// spelled it from Connect.
	App string
	// AppKey is the provider's app key; it names its realms.
	AppKey int
	// Stages holds the provider's catalog per stage (client.Dev,
	// client.Prod), present only where it has a data backend that shares
	// something.
	Stages map[client.Stage]Catalog
}

// Catalog is what a provider shares in one stage: its tables and
// transforms that are not private.
type Catalog struct {
	Tables     []Entry `json:"tables"`
	Transforms []Entry `json:"transforms"`
}

// Entry is a shared table or transform.
type Entry struct {
	Name        string   `json:"tablename"`
	Description string   `json:"description"`
	Columns     []Column `json:"columns"`
}

// Column is a column of a shared table or transform, as the provider's
// data template declares it.
type Column struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	DataType    string `json:"dataType"`
	// Path is the column's JSON path in the rows written, when it is not
	// the default.
	Path string `json:"path"`
	// Secret marks a secret column: it reads as "__secret__" and may not
	// be filtered on, selected, aggregated or grouped by.
	Secret bool `json:"secret"`
}

// empty reports a catalog that shares nothing, which counts as absent.
func (c Catalog) empty() bool { return len(c.Tables) == 0 && len(c.Transforms) == 0 }

// cloneEntries returns a deep copy of es, so that callers cannot change a
// handle's catalog.
func cloneEntries(es []Entry) []Entry {
	if es == nil {
		return nil
	}
	out := make([]Entry, len(es))
	for i, e := range es {
		e.Columns = slices.Clone(e.Columns)
		out[i] = e
	}
	return out
}

// find returns the table or transform called name, and whether it is a
// transform.
func (c Catalog) find(name string) (e *Entry, transform bool) {
	for i := range c.Tables {
		if c.Tables[i].Name == name {
			return &c.Tables[i], false
		}
	}
	for i := range c.Transforms {
		if c.Transforms[i].Name == name {
			return &c.Transforms[i], true
		}
	}
	return nil, false
}

// wireInfo is the answer's shape (docs/wire.md §7.12).
type wireInfo struct {
	App    string             `json:"app"`
	Key    *int64             `json:"provider_app_key"`
	Stages map[string]Catalog `json:"stages"`
}

// parseInfo decodes one provider object of a discovery answer. requested
// is the name the caller asked for, "" for List. No answer, or one
// without the provider's key, is PROVIDER_NOT_INSTALLED; its message uses
// the platform's spelling when the answer has one, else the requested one.
func parseInfo(requested string, v any) (ProviderInfo, error) {
	if m, ok := v.(map[string]any); !ok || len(m) == 0 {
		return ProviderInfo{}, accessErr(CodeProviderNotInstalled, requested,
			"the platform knows no data backend of app %q (its answer was %s)", requested, describe(v))
	}
	var w wireInfo
	if err := client.DecodeInto(v, &w); err != nil {
		return ProviderInfo{}, fmt.Errorf("unexpected answer about app %q: %w", requested, err)
	}
	info := ProviderInfo{App: w.App, Stages: map[client.Stage]Catalog{}}
	if info.App == "" {
		info.App = requested
	}
	if w.Key == nil || *w.Key <= 0 {
		return ProviderInfo{}, accessErr(CodeProviderNotInstalled, info.App,
			"the platform gave no app key for app %q: it has no data backend", info.App)
	}
	if *w.Key > math.MaxInt {
		return ProviderInfo{}, fmt.Errorf("unexpected answer about app %q: app key %d does not fit an int on this device", info.App, *w.Key)
	}
	info.AppKey = int(*w.Key)
	for name, cat := range w.Stages {
		if st, ok := parseStage(name); ok && !cat.empty() {
			info.Stages[st] = cat
		}
	}
	return info, nil
}

// parseStage reads a stage key of an answer: "dev" or "prod", any case.
func parseStage(s string) (client.Stage, bool) {
	switch {
	case strings.EqualFold(s, string(client.Dev)):
		return client.Dev, true
	case strings.EqualFold(s, string(client.Prod)):
		return client.Prod, true
	}
	return "", false
}

// describe names an answer's value for a message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "empty"
	case map[string]any:
		return "{}"
	default:
		return fmt.Sprintf("a %T", x)
	}
}
