// This file holds rendering: the embedded assets (templates, style sheet,
// script), the page layout and the helpers templates use to show values
// (readable JSON, times, sizes, table cells).

package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"
)

//go:embed assets
var assets embed.FS

// pages are the templates, each with the layout.
var pages = parsePages()

// page is what every template gets.
type page struct {
	Title   string
	Section string // the navigation entry to highlight
	Write   bool   // actions are allowed
	Now     time.Time
	Data    any
}

// sections are the navigation entries: path and title.
var sections = []struct{ Path, Title string }{
	{"/", "Overview"}, {"/fleet", "Fleet"}, {"/sessions", "Sessions"}, {"/traffic", "Traffic"},
	{"/tables", "Tables"}, {"/sql", "SQL"}, {"/files", "Files"}, {"/agents", "Agents"}, {"/faults", "Faults"},
}

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"json":     prettyJSON,
		"time":     showTime,
		"ms":       showMillis,
		"bytes":    showBytes,
		"cell":     showCell,
		"sections": func() any { return sections },
		"percent":  percent,
	}
	names, err := fs.Glob(assets, "assets/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" || base == "pager.html" { // parts of every page
			continue
		}
		t := template.Must(template.New(base).Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/pager.html", n))
		out[base[:len(base)-len(".html")]] = t
	}
	return out
}

// render writes a page with status 200.
func (c *Console) render(w http.ResponseWriter, name, title, section string, data any) {
	c.renderStatus(w, http.StatusOK, name, title, section, data)
}

// renderStatus writes a page; the template runs into a buffer first, so a
// template error is a 500, not half a page.
func (c *Console) renderStatus(w http.ResponseWriter, status int, name, title, section string, data any) {
	t := pages[name]
	var buf bytes.Buffer
	err := t.ExecuteTemplate(&buf, "layout", page{Title: title, Section: section, Write: c.cfg.Write,
		Now: c.cfg.Clock.Now(), Data: data})
	if err != nil {
		c.cfg.Log.Error("console page", "page", name, "err", err)
		http.Error(w, "the console could not render this page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail writes an error page.
func (c *Console) fail(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	c.renderStatus(w, status, "error", http.StatusText(status), "", msg)
}

// asset serves the style sheet and the script.
func (c *Console) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := assets.ReadFile("assets/" + name)
	if err != nil || path.Ext(name) == ".html" {
		c.fail(w, r, http.StatusNotFound, "There is no asset "+name+".")
		return
	}
	switch path.Ext(name) {
	case ".css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case ".js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	}
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// readable returns v with what JSON cannot carry made readable: NaN and
// ±Inf as text, byte strings as {"bytes": base64}.
func readable(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case []byte:
		return map[string]any{"bytes": x}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = readable(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = readable(e)
		}
		return out
	}
	return v
}

// prettyJSON renders v as indented JSON.
func prettyJSON(v any) string {
	b, err := json.MarshalIndent(readable(v), "", "  ")
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// compactJSON renders v as one line of JSON.
func compactJSON(v any) string {
	b, err := json.Marshal(readable(v))
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// timeLayout is how the console shows times: UTC to the millisecond.
const timeLayout = "2006-01-02 15:04:05.000Z"

func showTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(timeLayout)
}

// showMillis shows a timestamp as a time: the ISO 8601 text a read
// gives, or epoch milliseconds.
func showMillis(v any) string {
	switch x := v.(type) {
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return showTime(t)
		}
	case int64:
		return showTime(time.UnixMilli(x))
	case float64:
		return showTime(time.UnixMilli(int64(x)))
	case int:
		return showTime(time.UnixMilli(int64(x)))
	}
	return showCell(v)
}

// showBytes shows a size in bytes with a binary unit.
func showBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// showCell shows a value of a table row: NULL, text as is, the rest as
// JSON.
func showCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	}
	return compactJSON(v)
}

// percent returns used/total in percent, 0 for an unlimited total.
func percent(used, total int64) int64 {
	if total <= 0 {
		return 0
	}
	return min(100, used*100/total)
}

// urlValues encodes name, value pairs as a query string.
func urlValues(kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q.Encode()
}
