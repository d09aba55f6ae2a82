// This file holds Filter, a condition on the rows of one table, and its
// combinators.

package typed

import "github.com/flockgo/ironflock/client"

// Filter is a condition on the rows of the table whose row type is R: the
// type parameter keeps a filter of one table out of another table's
// query. Columns build filters (Readings.Temperature.Gt(3)); And and Or
// combine them. The zero Filter is no condition: every row matches.
type Filter[R any] struct {
	terms []client.Filter // all must hold
}

// filter makes a Filter of one client filter.
func filter[R any](f client.Filter) Filter[R] { return Filter[R]{terms: []client.Filter{f}} }

// IsZero reports the zero Filter, which every row matches.
func (f Filter[R]) IsZero() bool { return len(f.terms) == 0 }

// And returns a Filter that holds when f and every one of gs hold. Zero
// filters among them add nothing.
func (f Filter[R]) And(gs ...Filter[R]) Filter[R] {
	terms := append([]client.Filter(nil), f.terms...)
	for _, g := range gs {
		terms = append(terms, g.terms...)
	}
	return Filter[R]{terms: terms}
}

// Or returns a Filter that holds when f or one of gs holds. A zero
// filter among them holds for every row, and so does the result.
func (f Filter[R]) Or(gs ...Filter[R]) Filter[R] {
	if f.IsZero() {
		return Filter[R]{}
	}
	alts := []client.Filter{f.single()}
	for _, g := range gs {
		if g.IsZero() {
			return Filter[R]{}
		}
		alts = append(alts, g.single())
	}
	if len(alts) == 1 {
		return f
	}
	return filter[R](client.Or(alts...))
}

// single returns f as one client filter: its term, or an AND group.
func (f Filter[R]) single() client.Filter {
	if len(f.terms) == 1 {
		return f.terms[0]
	}
	return client.And(f.terms...)
}

// Filters returns f in the form of package client: the filters of a
// query's FilterAnd, all of which must hold (nil for the zero Filter).
func (f Filter[R]) Filters() []client.Filter {
	if len(f.terms) == 0 {
		return nil
	}
	return append([]client.Filter(nil), f.terms...)
}

// And returns the Filter that holds when every one of fs holds.
func And[R any](fs ...Filter[R]) Filter[R] { return Filter[R]{}.And(fs...) }

// Or returns the Filter that holds when one of fs holds; with no filters
// it is the zero Filter.
func Or[R any](fs ...Filter[R]) Filter[R] {
	if len(fs) == 0 {
		return Filter[R]{}
	}
	return fs[0].Or(fs[1:]...)
}

// Latest is the latest marker of the table whose row type is R: the
// newest row per entity of a table with an entity key
// (maintainLatestFlagFor), or the table's single newest row. flockgen
// names it <Table>Latest for the tables that have an entity key. Series
// queries refuse it.
func Latest[R any]() Filter[R] { return filter[R](client.Latest()) }
