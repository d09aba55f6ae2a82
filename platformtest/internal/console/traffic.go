// This file serves the traffic:
//
//	GET /traffic         the filter form, the live table (JavaScript) and
//	                     the newest recorded inbound messages (no JavaScript
//	                     needed); ?view=compact shows one line per message
//	GET /traffic/stream  server-sent events: one "message" event per tapped
//	                     message (JSON), filtered by ?realm= (exact), ?uri=
//	                     (substring) and ?device= (key), and a "dropped"
//	                     event when this viewer fell behind
//
// A viewer watches through its own bounded tap of the router: a viewer
// that cannot keep up loses messages, the router never waits for it.

package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/router"
)

// Bounds of the traffic views.
const (
	// StreamBuffer is how many messages a viewer's tap holds before
	// messages are dropped for it.
	StreamBuffer = 1024
	// recentRecorded is how many recorded messages the page shows.
	recentRecorded = 100
	// streamKeepalive is how often an idle stream sends a comment.
	streamKeepalive = 15 * time.Second
)

// trafficFilter selects messages by realm, URI and device.
type trafficFilter struct {
	Realm  string
	URI    string
	Device string // a device key, as typed
	key    int
}

func parseFilter(r *http.Request) trafficFilter {
	q := r.URL.Query()
	f := trafficFilter{Realm: strings.TrimSpace(q.Get("realm")), URI: strings.TrimSpace(q.Get("uri")),
		Device: strings.TrimSpace(q.Get("device"))}
	f.key, _ = strconv.Atoi(f.Device)
	return f
}

func (f trafficFilter) match(realm, uri string, device int) bool {
	return (f.Realm == "" || f.Realm == realm) && (f.URI == "" || strings.Contains(uri, f.URI)) &&
		(f.Device == "" || f.key == device)
}

// Query returns the filter as a query string.
func (f trafficFilter) Query() string {
	q := url.Values{}
	for _, kv := range [][2]string{{"realm", f.Realm}, {"uri", f.URI}, {"device", f.Device}} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	return q.Encode()
}

// TrafficEvent is a tapped message as the stream sends it.
type TrafficEvent struct {
	Seq       uint64         `json:"seq"`
	Time      time.Time      `json:"time"`
	Dir       string         `json:"dir"`
	Kind      string         `json:"kind"`
	Realm     string         `json:"realm"`
	Session   uint64         `json:"session"`
	AuthID    string         `json:"authid"`
	DeviceKey int            `json:"device_key"`
	URI       string         `json:"uri"`
	Request   uint64         `json:"request,omitempty"`
	Error     string         `json:"error,omitempty"`
	Args      []any          `json:"args,omitempty"`
	Kwargs    map[string]any `json:"kwargs,omitempty"`
}

type recordedView struct {
	Time    time.Time
	Kind    string
	Realm   string
	URI     string
	Session uint64
	AuthID  string
	Payload string // indented JSON
	Line    string // the same on one line
}

type trafficView struct {
	Filter   trafficFilter
	Realms   []string
	Recorded []recordedView
	Stats    router.RecordingStats
	Compact  bool // one line per message (?view=compact)
	Counters []counterView
}

// counterView is one series of the platform's metrics as the traffic
// page shows it.
type counterView struct {
	Name   string
	Labels string // name="value", …
	Value  string // a histogram's count and mean
}

// counters returns the series of the platform's metrics; with a URI in
// the filter, only those of a matching URI among the series labelled by
// one.
func (c *Console) counters(f trafficFilter) []counterView {
	if c.cfg.Metrics == nil {
		return nil
	}
	var out []counterView
	for _, fam := range c.cfg.Metrics.Snapshot() {
	series:
		for _, s := range fam.Samples {
			var labels []string
			for i, l := range fam.Labels {
				if i >= len(s.Labels) {
					continue
				}
				if (l == "uri" || l == "procedure") && !strings.Contains(s.Labels[i], f.URI) {
					continue series
				}
				labels = append(labels, l+"="+strconv.Quote(s.Labels[i]))
			}
			v := strconv.FormatFloat(s.Value, 'f', -1, 64)
			if h := s.Hist; h != nil {
				if h.Count == 0 {
					continue
				}
				v = fmt.Sprintf("%d, mean %s", h.Count, time.Duration(h.Sum/float64(h.Count)*float64(time.Second)).Round(time.Microsecond))
			}
			out = append(out, counterView{Name: fam.Name, Labels: strings.Join(labels, ", "), Value: v})
		}
	}
	return out
}

// OtherView returns the address of the page in the other view (compact or
// full), the filter kept.
func (v trafficView) OtherView() string {
	q, _ := url.ParseQuery(v.Filter.Query())
	if !v.Compact {
		q.Set("view", "compact")
	}
	if len(q) == 0 {
		return "/traffic"
	}
	return "/traffic?" + q.Encode()
}

func (c *Console) traffic(w http.ResponseWriter, r *http.Request) {
	f := parseFilter(r)
	v := trafficView{Filter: f, Stats: c.cfg.Router.RecordingStats(), Compact: r.URL.Query().Get("view") == "compact",
		Counters: c.counters(f)}
	authids := map[string]bool{} // those of the device the filter names: its sessions' and its serial
	if f.Device != "" {
		for _, s := range c.cfg.Router.Sessions() {
			if s.DeviceKey == f.key {
				authids[s.AuthID] = true
			}
		}
	}
	c.cfg.Registry.Do(func(s *registry.State) {
		if d := s.Device(f.key); d != nil && f.Device != "" {
			authids[d.Serial] = true
		}
		for _, ri := range s.Realms() {
			if s.RealmInUse(ri.Name) {
				v.Realms = append(v.Realms, ri.Name)
			}
		}
	})
	rec := c.cfg.Router.Recorded("")
	for i := len(rec) - 1; i >= 0 && len(v.Recorded) < recentRecorded; i-- {
		m := rec[i]
		device := -1 // not the device filtered on, if any
		if authids[m.AuthID] {
			device = f.key
		}
		if !f.match(m.Realm, m.URI, device) {
			continue
		}
		p := payload(m.Args, m.Kwargs)
		v.Recorded = append(v.Recorded, recordedView{Time: m.Time, Kind: m.Kind, Realm: m.Realm, URI: m.URI,
			Session: m.Session, AuthID: m.AuthID, Payload: prettyJSON(p), Line: compactJSON(p)})
	}
	c.render(w, "traffic", "Traffic", "/traffic", v)
}

// payload is what the console shows of a message's arguments.
func payload(args []any, kwargs map[string]any) map[string]any {
	p := map[string]any{}
	if len(args) > 0 {
		p["args"] = args
	}
	if len(kwargs) > 0 {
		p["kwargs"] = kwargs
	}
	return p
}

func (c *Console) trafficStream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		c.fail(w, r, http.StatusInternalServerError, "This server cannot stream.")
		return
	}
	f := parseFilter(r)
	tap := c.cfg.Router.Watch(StreamBuffer)
	defer tap.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, "retry: 1000\n: watching\n\n")
	fl.Flush()
	keep := time.NewTicker(streamKeepalive)
	defer keep.Stop()
	var dropped int64
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keep.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case m, ok := <-tap.C():
			if !ok {
				return
			}
			if d := tap.Dropped(); d != dropped {
				dropped = d
				if _, err := fmt.Fprintf(w, "event: dropped\ndata: %d\n\n", d); err != nil {
					return
				}
			}
			if !f.match(m.Realm, m.URI, m.DeviceKey) {
				continue
			}
			b, err := json.Marshal(TrafficEvent{Seq: m.Seq, Time: m.Time.UTC(), Dir: m.Dir, Kind: m.Kind, Realm: m.Realm,
				Session: m.Session, AuthID: m.AuthID, DeviceKey: m.DeviceKey, URI: m.URI, Request: m.Request,
				Error: m.Error, Args: readableList(m.Args), Kwargs: readableDict(m.Kwargs)})
			if err != nil {
				continue
			}
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", m.Seq, b); err != nil {
				return
			}
			if len(tap.C()) == 0 {
				fl.Flush()
			}
		}
	}
}

func readableList(l []any) []any {
	if l == nil {
		return nil
	}
	out, _ := readable(l).([]any)
	return out
}

func readableDict(d map[string]any) map[string]any {
	if d == nil {
		return nil
	}
	out, _ := readable(d).(map[string]any)
	return out
}
