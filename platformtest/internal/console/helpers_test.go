package console_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// dataTemplate has an entity table with a secret column, and files.
const dataTemplate = `data:
  tables:
    - tablename: readings
      description: One reading per sensor
      maintainLatestFlagFor: [sensor]
      columns:
        - {id: tsp, name: Timestamp, dataType: timestamp}
        - {id: sensor, name: Sensor, dataType: string}
        - {id: celsius, name: Celsius, dataType: numeric}
        - {id: pin, name: PIN, dataType: string, secret: true}
`

// agentTemplate has one agent with one topic tool.
const agentTemplate = `assistant:
  main: true
  system_prompt: You help operators.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 3
  tools:
    read_temperature:
      description: Reads a temperature.
      topic: read_temperature
      parameters:
        type: object
        properties:
          sensor: {type: string, description: which sensor}
          unit: {type: string, enum: [C, F]}
          samples: {type: integer}
        required: [sensor]
`

// t0 is the time of the first row.
var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

// world is a platform with the console, a project with two devices
// running app "sensors", rows and a file.
type world struct {
	p        *platformtest.Platform
	in1, in2 *platformtest.Installation
	realm    string
	http     *http.Client
}

func newWorld(t *testing.T, c platformtest.Console) *world {
	t.Helper()
	p := platformtest.New(t, platformtest.WithConsole(c))
	pr := p.AddProject("factory")
	d1, d2 := pr.AddDevice("press-1"), pr.AddDevice("press-2")
	pr.AddGroup("line-1", d1, d2)
	app := p.AddAppWithAgents("sensors", dataTemplate, agentTemplate)
	w := &world{p: p, in1: p.Install(d1, app, platformtest.Dev), in2: p.Install(d2, app, platformtest.Dev)}
	w.realm = w.in1.Realm()
	for i := range 6 {
		in := w.in1
		if i%2 == 1 {
			in = w.in2
		}
		if err := p.InsertRows(in, "readings", map[string]any{"tsp": t0.Add(time.Duration(i) * time.Minute),
			"sensor": []string{"s1", "s2", "s3"}[i%3], "celsius": 20 + float64(i), "pin": "1234"}); err != nil {
			t.Fatal(err)
		}
	}
	p.StoreFile(w.realm, "default", "shots/press.png", []byte("not really a png"), "image/png")
	w.http = &http.Client{Timeout: 20 * time.Second}
	return w
}

// get fetches a console page and returns its status and body.
func (w *world) get(t *testing.T, path string) (int, string) {
	t.Helper()
	return w.do(t, http.MethodGet, path, nil, nil)
}

// page fetches a console page that must answer 200 and returns its body.
func (w *world) page(t *testing.T, path string) string {
	t.Helper()
	code, body := w.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, code, body)
	}
	return body
}

// post submits a console form.
func (w *world) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	return w.do(t, http.MethodPost, path, form, nil)
}

func (w *world) do(t *testing.T, method, path string, form url.Values, header http.Header) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, w.p.HTTPURL()+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := w.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res.StatusCode, string(b)
}

var (
	rowRe  = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRe = regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
	tagRe  = regexp.MustCompile(`<[^>]+>`)
)

// tableCells returns the text of the body cells of the table with id, row
// by row, white space collapsed.
func tableCells(t *testing.T, page, id string) [][]string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no table %q in the page:\n%s", id, page)
	}
	rest := page[i:]
	rest = rest[:strings.Index(rest, "</table>")]
	if j := strings.Index(rest, "<tbody>"); j >= 0 {
		rest = rest[j:]
	}
	var out [][]string
	for _, r := range rowRe.FindAllStringSubmatch(rest, -1) {
		var row []string
		for _, c := range cellRe.FindAllStringSubmatch(r[1], -1) {
			row = append(row, strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(c[1], ""))), " "))
		}
		out = append(out, row)
	}
	return out
}

// testCtx is a context that ends with the test, or after 30 seconds.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
