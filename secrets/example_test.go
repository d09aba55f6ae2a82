package secrets_test

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/secrets"
)

// exampleTemplate is the data template of the examples' app: one API key
// per machine, kept secret.
const exampleTemplate = `
data:
  tables:
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: note, name: Note, dataType: string}
        - {id: api_key, name: API key, dataType: string, secret: true}
`

// Credential is a row of the examples' credentials table.
type Credential struct {
	Tsp     time.Time     `json:"tsp"`
	Machine string        `json:"machine"`
	Note    string        `json:"note,omitempty"`
	APIKey  secrets.Value `json:"api_key"`
}

// example starts a fake platform with the example template and a
// connected client; stop ends both.
func example() (c *client.Client, p *platformtest.Platform, stop func()) {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	app := p.AddApp("vault", exampleTemplate)
	in := p.Install(p.AddDevice("gateway"), app, platformtest.Dev)
	c, err = client.New(client.WithEnv(in.Env()))
	if err != nil {
		panic(err)
	}
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	return c, p, func() { _ = c.Stop(context.Background()); p.Close() }
}

var exampleTime = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// Store an API key, check a candidate against it and reveal it.
func Example() {
	c, _, stop := example()
	defer stop()
	ctx := context.Background()

	// Written in plaintext, encrypted by the platform.
	_, err := c.AppendToTable(ctx, "credentials", Credential{Tsp: exampleTime, Machine: "press-1", APIKey: secrets.Set("sk-live-42")})
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, _ := c.GetHistory(ctx, "credentials", nil)
	fmt.Println("history shows:", rows[0]["api_key"])

	s := secrets.New(c)
	press1 := &client.Query{FilterAnd: []client.Filter{client.Where("machine", "=", "press-1")}}
	for _, candidate := range []string{"sk-guess", "sk-live-42"} {
		res, err := s.Verify(ctx, "credentials", "api_key", candidate, press1)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("verify: match=%v checked=%d\n", res.Match, res.Checked)
	}

	revealed, err := s.Reveal(ctx, "credentials", press1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reveal shows:", revealed[0]["machine"], revealed[0]["api_key"])
	// Output:
	// history shows: __secret__
	// verify: match=false checked=1
	// verify: match=true checked=1
	// reveal shows: press-1 sk-live-42
}

// A zero Value keeps the stored secret, Clear clears it.
func ExampleValue() {
	c, p, stop := example()
	defer stop()
	ctx := context.Background()
	write := func(minute int, note string, key secrets.Value) {
		row := Credential{Tsp: exampleTime.Add(time.Duration(minute) * time.Minute), Machine: "press-1", Note: note, APIKey: key}
		if _, err := c.AppendToTable(ctx, "credentials", row); err != nil {
			fmt.Println(err)
		}
	}
	write(0, "installed", secrets.Set("sk-live-42"))
	write(1, "serviced", secrets.Keep()) // the zero Value: the key stays
	write(2, "retired", secrets.Clear())

	rows, err := secrets.New(c).Reveal(ctx, "credentials", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	creds, _ := client.DecodeRows[Credential](rows)
	for _, cr := range creds {
		key, ok := cr.APIKey.Plaintext()
		fmt.Printf("%s %-9s %q %v\n", cr.Tsp.Format("15:04"), cr.Note, key, ok)
	}
	// What direct SQL access would show: ciphertext.
	stored := p.TableRows(c.Identity().Realm(), "credentials")
	fmt.Println(fmt.Sprint(stored[0]["api_key"])[:8])
	// Output:
	// 08:02 retired   "" false
	// 08:01 serviced  "sk-live-42" true
	// 08:00 installed "sk-live-42" true
	// ifsec:1:
}

// Filters on a secret column are refused, in every read.
func ExampleClient_Verify_secretFilter() {
	c, _, stop := example()
	defer stop()
	_, err := secrets.New(c).Verify(context.Background(), "credentials", "api_key", "sk-guess",
		&client.Query{FilterAnd: []client.Filter{client.IsNotNull("api_key")}})
	fmt.Println(client.WampURI(err))
	// Output:
	// sys.dataservice.error.secret_column
}
