package platformtest

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/client"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestCloseLeavesNothing closes a platform with links in every state and
// checks that clients see the end and no goroutine is left.
func TestCloseLeavesNothing(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	a := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	b := worldtest.Connect(t, f.p, f.in2, client.JSON)
	frozen := worldtest.JoinInstallation(t, f.p, f.in1, false)
	f.p.FreezeConnections()
	half := worldtest.DialWire(t, f.p, true) // upgraded, no HELLO yet
	idle, err := net.Dial("tcp", strings.TrimPrefix(f.p.HTTPURL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idle.Close() })
	f.p.WithholdRealm(f.in2.Realm())

	f.p.Close()
	f.p.Close() // idempotent
	waitDone(t, a, "after Close")
	waitDone(t, b, "after Close")
	for _, c := range []*worldtest.WireClient{frozen, half} {
		if _, err := c.NextCtx(worldtest.Ctx(t)); err != worldtest.ErrLinkClosed {
			t.Errorf("link after Close: %v", err)
		}
	}
	if err := f.p.Up(); err == nil {
		t.Error("Up after Close succeeded")
	}
	if err := f.p.WaitSessions(worldtest.Ctx(t), "", 1); err == nil {
		t.Error("WaitSessions after Close succeeded")
	}
}

// TestStartClose runs a platform without a test helper.
func TestStartClose(t *testing.T) {
	leakcheck.Check(t)
	p, err := Start(WithAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.HasPrefix(p.URL(), "ws://127.0.0.1:") || !strings.HasSuffix(p.URL(), wire.RouterPath) {
		t.Errorf("URL %s", p.URL())
	}
	if p.HTTPURL()+wire.RouterPath != strings.Replace(p.URL(), "ws://", "http://", 1) {
		t.Errorf("HTTPURL %s does not match URL %s", p.HTTPURL(), p.URL())
	}
	// Start reports provisioning mistakes by panicking.
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "exists") {
				t.Errorf("duplicate project: recovered %v, want a panic naming the duplicate", r)
			}
		}()
		p.AddProject("x")
		p.AddProject("x")
	}()
}

// TestStartAddressTaken reports a listen error.
func TestStartAddressTaken(t *testing.T) {
	p := New(t)
	if q, err := Start(WithAddr(strings.TrimPrefix(p.HTTPURL(), "http://"))); err == nil {
		q.Close()
		t.Fatal("second platform on the same address started")
	}
}

// TestUpgradeNeedsSubprotocol refuses a WebSocket without a WAMP
// subprotocol and plain HTTP on the WAMP path.
func TestUpgradeNeedsSubprotocol(t *testing.T) {
	p := New(t)
	d := websocket.Dialer{Subprotocols: []string{"wamp.2.cbor"}}
	conn, rsp, err := d.Dial(p.URL(), nil)
	if err == nil {
		_ = conn.Close()
		t.Fatal("upgrade without a supported subprotocol succeeded")
	}
	if rsp == nil || rsp.StatusCode != http.StatusBadRequest {
		t.Errorf("response %v, want 400", rsp)
	}
	res, err := http.Get(p.HTTPURL() + wire.RouterPath)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET: %d, want 400", res.StatusCode)
	}
}
