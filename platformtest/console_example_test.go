package platformtest_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"

	"github.com/flockgo/ironflock/platformtest"
)

// ExampleWithConsole serves the web console on an embedded platform and
// reads its fleet page, as a browser would. Console{Write: true} would
// also allow its fault buttons and tool calls.
func ExampleWithConsole() {
	p, err := platformtest.Start(platformtest.WithConsole(platformtest.Console{}))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	p.Install(p.AddDevice("sensor-1"), p.AddApp("quickstart", ""), platformtest.Dev)

	res, err := http.Get(p.HTTPURL() + "/fleet")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	fmt.Println(res.Status, res.Header.Get("Content-Type"))
	fmt.Println(strings.Contains(string(page), "sensor-1"), strings.Contains(string(page), "read-only"))

	res, err = http.Post(p.HTTPURL()+"/faults/drop", "application/x-www-form-urlencoded", nil)
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println("drop connections:", res.Status)
	// Output:
	// 200 OK text/html; charset=utf-8
	// true true
	// drop connections: 403 Forbidden
}
