// This file holds the paging of long lists (the devices of the fleet, the
// installations of an app): a page holds at most pageSize entries, picked
// by ?page=N among those matching ?q= (a search by name, serial number or
// key) within the filter of the list (?group= of the fleet page, ?realm=
// of an app's page; capped.go links to them), so that a page of a fleet
// of 100,000 devices costs what one of 50 does to render and to read.

package console

import (
	"net/url"
	"strconv"
	"strings"
)

// pageSize is how many entries a page lists.
const pageSize = 50

// pager is the paging of one list: the search, the page shown and links
// to the pages before and after it.
type pager struct {
	Q              string
	Page, Pages    int // from 1
	Total, Matches int // entries in all, and matching Q
	From, To       int // the entries shown, from 1; 0 when none
	Prev, Next     string
	Keep           []keptParam // the filter, which a search keeps
}

// keptParam is a parameter of the query that a search keeps.
type keptParam struct{ Name, Value string }

// filterParams are the parameters that narrow a paged list, kept by its
// search.
var filterParams = []string{"group", "realm"}

// newPager reads ?q= and ?page= of query for a list of total entries of
// which matches match the search, and returns the paging with the range
// [lo, hi) of the matching entries to show. A page past the last shows
// the last.
func newPager(query url.Values, total, matches int) (p pager, lo, hi int) {
	p = pager{Q: strings.TrimSpace(query.Get("q")), Total: total, Matches: matches}
	for _, k := range filterParams {
		if query.Has(k) {
			p.Keep = append(p.Keep, keptParam{Name: k, Value: query.Get(k)})
		}
	}
	p.Pages = max(1, (matches+pageSize-1)/pageSize)
	p.Page = min(max(1, atoiOr(query.Get("page"), 1)), p.Pages)
	lo, hi = (p.Page-1)*pageSize, min(p.Page*pageSize, matches)
	if hi > lo {
		p.From, p.To = lo+1, hi
	}
	link := func(page int) string {
		q := url.Values{}
		for k, vs := range query {
			q[k] = vs
		}
		q.Set("page", strconv.Itoa(page))
		return "?" + q.Encode()
	}
	if p.Page > 1 {
		p.Prev = link(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = link(p.Page + 1)
	}
	return p, lo, hi
}

// search tells whether an entry named name with serial number serial and
// key key matches the search q: q is empty, the key, or a part of the
// name or serial in any case.
func search(q, name, serial string, key int) bool {
	if q == "" || q == strconv.Itoa(key) {
		return true
	}
	q = strings.ToLower(q)
	return strings.Contains(strings.ToLower(name), q) || strings.Contains(strings.ToLower(serial), q)
}
