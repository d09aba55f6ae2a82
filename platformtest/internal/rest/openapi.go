// This file serves the OpenAPI 3.1 document of the management REST API,
// written by hand in openapi.json to match docs/fake.md §9 and the choices
// of this fake where it is silent (listed in the document's description):
//
//	GET /openapi.json   the document; no token needed

package rest

import (
	_ "embed"
	"net/http"
	"strconv"
)

// openAPIPath is the route of the document under the API's prefixes.
const openAPIPath = "/openapi.json"

//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns a copy of the OpenAPI 3.1 document of the management
// REST API, as served at /v1/platform/openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPIDocument...) }

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(openAPIDocument)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPIDocument)
}
