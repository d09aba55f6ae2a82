// This file holds the secret-column guard: a read of a provider's table
// that filters on, selects, aggregates or groups by a column the catalog
// marks secret is refused with SECRET_COLUMN before anything is sent. The
// guard reads the query's wire form (Query.Payload, SeriesQuery.Payload),
// so it sees every column the platform would see, in filter groups too.

package crossapp

import (
	"strings"

	"github.com/flockgo/ironflock/client"
)

// guardQuery checks a history query of table.
func (p *Provider) guardQuery(op, table string, q *client.Query) error {
	payload, err := q.Payload()
	if err != nil {
		return nil // the read itself refuses it, naming the field
	}
	return p.guard(op, table, payload)
}

// guardSeries checks a series query of table.
func (p *Provider) guardSeries(op, table string, q client.SeriesQuery) error {
	payload, err := q.Payload()
	if err != nil {
		return nil // the read itself refuses it, naming the field
	}
	return p.guard(op, table, payload)
}

// guard refuses a payload that uses a secret column of table.
func (p *Provider) guard(op, table string, payload map[string]any) error {
	e, _ := p.catalog.find(table)
	if e == nil {
		return nil
	}
	var secret []string
	for _, c := range e.Columns {
		if c.Secret {
			secret = append(secret, c.ID)
		}
	}
	if len(secret) == 0 {
		return nil
	}
	var refusal error
	visit := func(verb string, ref any) {
		name, _ := ref.(string)
		if refusal != nil || name == "" {
			return
		}
		for _, id := range secret {
			if refersTo(name, id) {
				refusal = &client.OpError{Op: op, URI: table, Err: accessErr(CodeSecretColumn, p.app,
					"the query %s %q, a secret column of %q of app %q", verb, name, table, p.app)}
				return
			}
		}
	}
	for _, c := range list(payload["columns"]) {
		visit("selects", c)
	}
	for _, c := range list(payload["columnPaths"]) {
		visit("selects", c)
	}
	for _, m := range list(payload["metrics"]) {
		if m, ok := m.(map[string]any); ok {
			visit("aggregates", m["ref"])
		}
	}
	for _, c := range list(payload["groupBy"]) {
		visit("groups by", c)
	}
	visitFilters(list(payload["filterAnd"]), func(column any) { visit("filters on", column) })
	return refusal
}

// visitFilters calls fn with the column of every predicate of nodes, in
// AND/OR groups too.
func visitFilters(nodes []any, fn func(column any)) {
	for _, n := range nodes {
		m, ok := n.(map[string]any)
		if !ok {
			continue
		}
		if col, ok := m["column"]; ok {
			fn(col)
		}
		visitFilters(list(m["filters"]), fn)
	}
}

// refersTo reports whether a column reference (a column, or a JSON path
// into one: "payload.temp") names the column id; identifiers are compared
// without regard to case, as SQL does.
func refersTo(ref, id string) bool {
	head, _, _ := strings.Cut(ref, ".")
	return strings.EqualFold(head, id) || strings.EqualFold(ref, id)
}

// list returns v as a list, or nil.
func list(v any) []any {
	l, _ := v.([]any)
	return l
}
