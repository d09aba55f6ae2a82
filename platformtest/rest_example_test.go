package platformtest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/flockgo/ironflock/platformtest"
)

// The management REST API answers on the platform's HTTP server; a user
// added in Go holds the bearer token.
func ExamplePlatform_AddUser() {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	defer p.Close()
	plant := p.AddProject("plant")
	p.AddUser("alice", "alice-token", map[*platformtest.Project]string{plant: platformtest.RoleAdmin})

	req, _ := http.NewRequest("POST", p.ManagementURL()+"/swarms/1/devices", strings.NewReader(`{"name":"press"}`))
	req.Header.Set("Authorization", "Bearer alice-token")
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer rsp.Body.Close()
	_, _ = io.Copy(io.Discard, rsp.Body)
	fmt.Println(rsp.Status)
	d := p.DeviceByKey(1)
	fmt.Println(d.Name(), d.Project().Name())
	// Output:
	// 201 Created
	// press plant
}
