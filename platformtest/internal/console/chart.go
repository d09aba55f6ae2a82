// This file draws the chart of the table browser: a numeric column over
// time from the series query (fleetdb.ReadSeries, as
// history.transformed.series.<t> answers it), with the column, the
// aggregate method, the number of buckets and the time range picked in a
// form (?column=, ?method=, ?buckets=, ?range=). The chart is SVG drawn on
// the server, so it needs no JavaScript.

package console

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
)

// Chart choices and geometry.
const (
	defaultBuckets = 50
	maxBuckets     = 500
	chartW, chartH = 860, 260
	padL, padR     = 64, 16
	padT, padB     = 12, 36
)

// chartMethods are the aggregates a chart may use (COUNT counts rows).
var chartMethods = []string{"AVG", "MIN", "MAX", "SUM", "COUNT", "FIRST", "LAST"}

// chartRange is a time range back from the newest row; 0 is all rows.
type chartRange struct {
	Name string
	D    time.Duration
}

// chartRanges are the time ranges, back from the newest row.
var chartRanges = []chartRange{{"all", 0}, {"1h", time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}, {"30d", 30 * 24 * time.Hour}}

type chartPoint struct {
	X, Y  float64
	Label string
}

type chartView struct {
	Columns         []string // the numeric columns
	Column, Method  string
	Buckets         int
	Range           string
	Methods, Ranges []string
	Hidden          url.Values // the table's paging, kept by the form

	Err          string
	Empty        bool
	W, H         int
	Left, Right  int
	Top, Bottom  int
	Line         string // polyline points
	Points       []chartPoint
	YMin, YMax   string
	XStart, XEnd string
	Start, End   time.Time
	Query        string // the series query, as sent
	Numbers      string
}

// chart builds the chart of a table; nil when it has no numeric column.
func (c *Console) chart(realm, table string, cols []columnView, ext fleetdb.Extent, q url.Values) *chartView {
	v := &chartView{Method: strings.ToUpper(q.Get("method")), Buckets: atoiOr(q.Get("buckets"), defaultBuckets),
		Range: q.Get("range"), Methods: chartMethods, W: chartW, H: chartH,
		Left: padL, Right: chartW - padR, Top: padT, Bottom: chartH - padB,
		Hidden: url.Values{}}
	for _, col := range cols {
		if col.Numeric && !col.Secret && col.ID != "device_key" {
			v.Columns = append(v.Columns, col.ID)
		}
	}
	if len(v.Columns) == 0 {
		return nil
	}
	for _, k := range []string{"offset", "limit", "latest"} {
		if s := q.Get(k); s != "" {
			v.Hidden.Set(k, s)
		}
	}
	for _, r := range chartRanges {
		v.Ranges = append(v.Ranges, r.Name)
	}
	v.Column = q.Get("column")
	if !slices.Contains(v.Columns, v.Column) {
		v.Column = v.Columns[0]
	}
	if !slices.Contains(chartMethods, v.Method) {
		v.Method = "AVG"
	}
	v.Buckets = min(max(v.Buckets, 1), maxBuckets)
	if ext.Rows == 0 {
		v.Empty = true
		return v
	}
	span := time.Duration(0)
	if i := slices.IndexFunc(chartRanges, func(r chartRange) bool { return r.Name == v.Range }); i >= 0 {
		span = chartRanges[i].D
	} else {
		v.Range = "all"
	}
	v.End = ext.Newest.Add(time.Millisecond)
	v.Start = ext.Oldest
	if span > 0 {
		v.Start = v.End.Add(-span)
	}
	if !v.End.After(v.Start) {
		v.Start = v.End.Add(-time.Second)
	}
	query := map[string]any{
		"metrics":   []any{map[string]any{"ref": v.Column, "method": v.Method}},
		"limit":     int64(v.Buckets),
		"timeRange": map[string]any{"start": v.Start.UnixMilli(), "end": v.End.UnixMilli()},
	}
	v.Query = compactJSON(query)
	rows, err := c.cfg.Fleet.ReadSeries(realm, table, query, c.cfg.Clock.Now())
	if err != nil {
		v.Err = err.Error()
		return v
	}
	v.plot(rows, v.Method+":"+v.Column)
	return v
}

// plot places the buckets with a value on the chart.
func (v *chartView) plot(rows []map[string]any, key string) {
	type pt struct {
		t int64
		y float64
	}
	var pts []pt
	for _, r := range rows {
		t, okT := number(r["tsp"])
		y, okY := number(r[key])
		if okT && okY {
			pts = append(pts, pt{int64(t), y})
		}
	}
	if len(pts) == 0 {
		v.Empty = true
		return
	}
	slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.t, b.t) })
	lo, hi := pts[0].y, pts[0].y
	for _, p := range pts {
		lo, hi = min(lo, p.y), max(hi, p.y)
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	t0, t1 := float64(v.Start.UnixMilli()), float64(v.End.UnixMilli())
	pw, ph := float64(v.Right-v.Left), float64(v.Bottom-v.Top)
	var line []string
	for _, p := range pts {
		x := float64(v.Left) + (float64(p.t)-t0)/(t1-t0)*pw
		y := float64(v.Top) + (1-(p.y-lo)/(hi-lo))*ph
		line = append(line, fmt.Sprintf("%.1f,%.1f", x, y))
		v.Points = append(v.Points, chartPoint{X: x, Y: y,
			Label: showTime(time.UnixMilli(p.t)) + ": " + strconv.FormatFloat(p.y, 'g', 6, 64)})
	}
	v.Line = strings.Join(line, " ")
	v.YMin, v.YMax = strconv.FormatFloat(lo, 'g', 6, 64), strconv.FormatFloat(hi, 'g', 6, 64)
	v.XStart, v.XEnd = showTime(v.Start), showTime(v.End.Add(-time.Millisecond)) // the last instant in range
	v.Numbers = fmt.Sprintf("%d buckets with values", len(pts))
}

// number reads a numeric value of a read.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}
