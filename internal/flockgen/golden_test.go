// This file holds the golden tests: the templates of testdata/<case>
// generate exactly internal/flockgen/golden/<case>/<case>.go, which the
// module builds (and vets), and whose own tests run the generated code
// against the fake platform. go test -run TestGolden -update rewrites
// them.

package flockgen

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenCases are the generated packages checked in under golden/.
var goldenCases = []struct {
	name      string
	providers map[string]string
}{
	// Every data type, nullable and secret columns, nested, kwargs, args[1]
	// and details paths, Go keywords, an entity table, a transform, a
	// consumed app, namespaces and tools.
	{"all", map[string]string{"weather": "testdata/weather"}},
	// One table, nothing else.
	{"minimal", nil},
	// Agent tools only: a shared topic, a delegate, the older parameter form.
	{"tools", nil},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Generate(Config{Dir: filepath.Join("testdata", tc.name), Package: tc.name, Providers: tc.providers})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("golden", tc.name, tc.name+".go")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, res.Code, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(res.Code) {
				t.Errorf("%s differs from the generated code from line %d on; run go test -run TestGolden -update if the change is meant", path, firstDiff(want, res.Code))
			}
			// The generated file is fresh by Check too.
			if changes, err := Check(Config{Dir: filepath.Join("testdata", tc.name), Package: tc.name, Providers: tc.providers}, want); err != nil || changes != nil {
				t.Errorf("Check = %q, %v", changes, err)
			}
		})
	}
}
