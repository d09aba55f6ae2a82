package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestFilesExample(t *testing.T) {
	leakcheck.Check(t)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, false); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"catalog   2 namespaces, inline limit 6291456 bytes, direct transfers true",
		"stored    reports/2026/01/01.csv (27 bytes)",
		"stored    default/logs/press-1.log (7340032 bytes directly, progress 100%)",
		"list      reports/2026/: folders [2026/01/]",
		"report    2026/01/01.csv 27 bytes, modified 20",
		"report    2026/01/03.csv 27 bytes, modified 20",
		"usage     4 objects, 7340113 bytes (reports 81, default 7340032)",
		"share URL (valid 10m0s) http://127.0.0.1:",
		`shared    "machine,parts\npress-1,1003\n"`,
		"done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}
