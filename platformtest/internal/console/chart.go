// This file draws the chart of the table browser: a numeric column over
// time from the series query (fleetdb.ReadSeries, as
// history.transformed.series.<t> answers it), with the column, the
// aggregate method, the number of buckets and the time range picked in a
// form (?column=, ?method=, ?buckets=, ?range=). The chart is SVG drawn on
// the server, so it needs no JavaScript: axes with ticks at round values
// and round times, a grid, axis titles (the column and method; time in
// UTC), points labelled with values rounded to four significant digits.
// The page's script redraws it every few seconds while it is open
// (data-refresh).

package console

import (
	"cmp"
	"fmt"
	"math"
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
	chartW, chartH = 860, 280
	padL, padR     = 72, 16
	padT, padB     = 14, 48
	// chartRefresh is how often the page redraws the chart and the rows
	// while it is open, in milliseconds.
	chartRefresh = 5000
)

// chartMethods are the aggregates a chart may use (COUNT counts rows).
var chartMethods = []string{"AVG", "MIN", "MAX", "SUM", "COUNT", "FIRST", "LAST"}

// chartRange is a time range back from the newest row; 0 is all rows.
type chartRange struct {
	Name string
	D    time.Duration
}

// chartRanges are the time ranges, back from the newest row.
var chartRanges = []chartRange{{"all", 0}, {"5m", 5 * time.Minute}, {"15m", 15 * time.Minute}, {"1h", time.Hour},
	{"6h", 6 * time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}, {"30d", 30 * 24 * time.Hour}}

type chartPoint struct {
	X, Y  float64
	Label string
}

// chartTick is a tick of an axis: its position in pixels (x for the time
// axis, y for the value axis) and its label.
type chartTick struct {
	Pos   float64
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
	XTicks       []chartTick
	YTicks       []chartTick
	XTitle       string // time in UTC, with the dates shown
	YTitle       string // the method and the column
	Start, End   time.Time
	Query        string // the series query, as sent
	Numbers      string
	Refresh      int // milliseconds between redraws
	// TickLeft and TickBottom are where the tick marks of the axes end.
	TickLeft, TickBottom int
}

// RefreshSeconds is the redraw interval in seconds.
func (v *chartView) RefreshSeconds() int { return v.Refresh / 1000 }

// chart builds the chart of a table; nil when it has no numeric column.
func (c *Console) chart(realm, table string, cols []columnView, ext fleetdb.Extent, q url.Values) *chartView {
	v := &chartView{Method: strings.ToUpper(q.Get("method")), Buckets: atoiOr(q.Get("buckets"), defaultBuckets),
		Range: q.Get("range"), Methods: chartMethods, W: chartW, H: chartH,
		Left: padL, Right: chartW - padR, Top: padT, Bottom: chartH - padB,
		Hidden: url.Values{}, Refresh: chartRefresh, TickLeft: padL - 5, TickBottom: chartH - padB + 5}
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
	v.YTitle = v.Method + " of " + v.Column
	if name := columnName(cols, v.Column); name != "" && name != v.Column {
		v.YTitle += " (" + name + ")"
	}
	v.plot(rows, v.Method+":"+v.Column)
	return v
}

// columnName returns the display name of column id.
func columnName(cols []columnView, id string) string {
	for _, c := range cols {
		if c.ID == id {
			return c.Name
		}
	}
	return ""
}

// plot places the buckets with a value on the chart.
func (v *chartView) plot(rows []map[string]any, key string) {
	type pt struct {
		t int64
		y float64
	}
	var pts []pt
	for _, r := range rows {
		t, okT := bucketStart(r["tsp"])
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
	// The value axis spans whole ticks around the values.
	lo, hi, step := niceScale(lo, hi)
	t0, t1 := float64(v.Start.UnixMilli()), float64(v.End.UnixMilli())
	pw, ph := float64(v.Right-v.Left), float64(v.Bottom-v.Top)
	yAt := func(y float64) float64 { return float64(v.Top) + (1-(y-lo)/(hi-lo))*ph }
	var line []string
	for _, p := range pts {
		x := float64(v.Left) + (float64(p.t)-t0)/(t1-t0)*pw
		y := yAt(p.y)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x, y))
		v.Points = append(v.Points, chartPoint{X: x, Y: y,
			Label: showTime(time.UnixMilli(p.t)) + ": " + roundValue(p.y)})
	}
	v.Line = strings.Join(line, " ")
	decimals := stepDecimals(step)
	for i := 0; ; i++ {
		y := lo + float64(i)*step
		if y > hi+step/2 {
			break
		}
		v.YTicks = append(v.YTicks, chartTick{Pos: yAt(y), Label: strconv.FormatFloat(y, 'f', decimals, 64)})
	}
	v.YMin, v.YMax = v.YTicks[0].Label, v.YTicks[len(v.YTicks)-1].Label
	v.XStart, v.XEnd = showTime(v.Start), showTime(v.End.Add(-time.Millisecond)) // the last instant in range
	v.XTicks, v.XTitle = timeTicks(v.Start, v.End, float64(v.Left), pw)
	v.Numbers = fmt.Sprintf("%d buckets with values", len(pts))
}

// niceScale widens [lo, hi] to whole steps of 1, 2, 2.5 or 5 × 10^k, about
// five of them.
func niceScale(lo, hi float64) (float64, float64, float64) {
	if lo == hi {
		d := math.Max(math.Abs(lo)/10, 1)
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step, step
}

// stepDecimals is how many decimals the labels of ticks step apart need.
func stepDecimals(step float64) int {
	d := 0
	for s := step; d < 10 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
		d++
	}
	return d
}

// roundValue shows a value to four significant digits, without an
// exponent for everyday magnitudes: 23.613420000507528 is 23.61.
func roundValue(y float64) string {
	if y == 0 || math.IsNaN(y) || math.IsInf(y, 0) {
		return strconv.FormatFloat(y, 'g', -1, 64)
	}
	exp := math.Floor(math.Log10(math.Abs(y)))
	if exp < -4 || exp >= 15 {
		return strconv.FormatFloat(y, 'g', 4, 64)
	}
	scale := math.Pow(10, 3-exp)
	return strconv.FormatFloat(math.Round(y*scale)/scale, 'f', -1, 64)
}

// tickSteps are the time steps of the time axis.
var tickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 30 * 24 * time.Hour}

// timeTicks returns ticks at round UTC times between start and end, at
// most about eight, placed from left over width pixels, and the axis
// title.
func timeTicks(start, end time.Time, left, width float64) ([]chartTick, string) {
	span := end.Sub(start)
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if span/s <= 8 {
			step = s
			break
		}
	}
	layout := "15:04"
	switch {
	case step < time.Minute:
		layout = "15:04:05"
	case step >= 24*time.Hour:
		layout = "Jan 2"
	}
	var ticks []chartTick
	first := start.UTC().Truncate(step)
	if first.Before(start) {
		first = first.Add(step)
	}
	for t := first; !t.After(end); t = t.Add(step) {
		x := left + float64(t.Sub(start))/float64(span)*width
		ticks = append(ticks, chartTick{Pos: x, Label: t.UTC().Format(layout)})
	}
	title := "time (UTC), " + start.UTC().Format("2006-01-02 15:04:05")
	if last := end.Add(-time.Millisecond).UTC(); last.Format("2006-01-02") == start.UTC().Format("2006-01-02") {
		title += " to " + last.Format("15:04:05")
	} else {
		title += " to " + last.Format("2006-01-02 15:04:05")
	}
	return ticks, title
}

// bucketStart reads a series row's tsp, an ISO 8601 text (or epoch
// milliseconds), as epoch milliseconds.
func bucketStart(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		t, err := time.Parse(time.RFC3339Nano, s)
		return float64(t.UnixMilli()), err == nil
	}
	return number(v)
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
