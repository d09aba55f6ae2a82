package ironflock_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// README begin: TestREADME checks that the README shows what follows.

// dataTemplate is the app's .ironflock/data-template.yml.
const dataTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: celsius, name: Temperature, dataType: numeric}
`

type Reading struct {
	Tsp     time.Time `json:"tsp"`
	Celsius float64   `json:"celsius"`
}

func TestReadings(t *testing.T) {
	p := platformtest.New(t, platformtest.WithStrictColumns()) // a key no column reads fails the test
	app := p.AddApp("my-app", dataTemplate)
	inst := p.Install(p.AddDevice("sensor-1"), app, platformtest.Dev)
	c := clienttest.Start(t, inst) // started; stopped when the test ends

	ctx := context.Background()
	if _, err := c.AppendToTable(ctx, "sensordata", Reading{Tsp: time.Now(), Celsius: 21.5}); err != nil {
		t.Fatal(err)
	}
	if err := c.Publish(ctx, "com.example.readings", Reading{Tsp: time.Now(), Celsius: 22}); err != nil {
		t.Fatal(err)
	}

	// What landed, as the platform holds it.
	if rows := p.TableRows(inst.Realm(), "sensordata"); len(rows) != 1 || rows[0]["celsius"] != 21.5 {
		t.Errorf("stored rows: %v", rows)
	}
	if pubs := p.Publications(); len(pubs) != 1 || pubs[0].URI != "com.example.readings" {
		t.Errorf("publications: %v", pubs)
	}
}

// README end

// TestREADME checks that the README's test skeleton is the code above
// between "README begin" and "README end", so that it compiles and
// passes as the README shows it.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "// README begin", "// README end"
	i, j := bytes.Index(src, []byte(begin)), bytes.Index(src, []byte(end))
	if i < 0 || j < i {
		t.Fatal("readme_test.go lacks its README markers")
	}
	code := src[i:j]
	code = bytes.TrimSpace(code[bytes.IndexByte(code, '\n')+1:]) // without the begin line
	if !bytes.Contains(readme, append(append([]byte("```go\n"), code...), []byte("\n```")...)) {
		t.Errorf("README.md does not show the test of readme_test.go verbatim in a ```go block; copy this into it:\n%s", code)
	}
}
