package platformtest_test

import (
	"fmt"
	"log"
	"net/http"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/platformtest"
)

// A platform on loopback answers only requests for loopback hosts and
// the hosts it was told to allow: a page whose own name resolves to
// 127.0.0.1 (DNS rebinding) gets 421.
func ExampleWithAllowedHosts() {
	p, err := platformtest.Start(platformtest.WithAllowedHosts("flockd.lan"))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for _, host := range []string{"localhost", "flockd.lan:8080", "attacker.example"} {
		req, _ := http.NewRequest(http.MethodGet, p.HTTPURL()+"/v1/platform/openapi.json", nil)
		req.Host = host
		rsp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		rsp.Body.Close()
		fmt.Println(host, rsp.StatusCode)
	}
	// Output:
	// localhost 200
	// flockd.lan:8080 200
	// attacker.example 421
}

// A web page may open a WAMP link only when it is the platform's own or
// its origin is allowed; devices send no Origin and are never refused.
func ExampleWithAllowedOrigins() {
	p, err := platformtest.Start(platformtest.WithAllowedOrigins("http://localhost:5173"))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for _, origin := range []string{"", p.HTTPURL(), "http://localhost:5173", "http://attacker.example"} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		d := websocket.Dialer{Subprotocols: []string{"wamp.2.json"}}
		conn, rsp, err := d.Dial(p.URL(), h)
		if conn != nil {
			conn.Close()
		}
		if rsp == nil {
			log.Fatal(err)
		}
		rsp.Body.Close()
		if origin == p.HTTPURL() {
			origin = "own"
		}
		fmt.Printf("%q %d\n", origin, rsp.StatusCode)
	}
	// Output:
	// "" 101
	// "own" 101
	// "http://localhost:5173" 101
	// "http://attacker.example" 403
}
