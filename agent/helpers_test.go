package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// weatherYAML is the agent template of the tests: the assistant forecasts
// and delegates to the archivist, who reads the history. Line numbers
// matter to the tests of mismatches.
const weatherYAML = `assistant:
  main: true
  system_prompt: You help.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 5
  tools:
    forecast:
      description: The forecast for a city.
      topic: weather.forecast
      parameters:
        type: object
        properties:
          city: {type: string, description: The city to look up}
          days: {type: integer, minimum: 1, maximum: 7}
          unit: {type: string, enum: [C, F]}
        required: [city, days]
        additionalProperties: false
    ask_archive:
      description: Hands a question to the archivist.
      delegate: archivist
archivist:
  system_prompt: You know the past.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 5
  tools:
    history:
      description: Past readings.
      topic: weather.history
      parameters:
        type: object
        properties:
          city: {type: string}
          since: {type: string, format: date-time}
          stations: {type: array, items: {type: string}}
          where:
            type: object
            properties: {lat: {type: number}, lon: {type: number}}
            required: [lat, lon]
        required: [city]
`

type forecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
	Unit string `json:"unit,omitempty"`
}

type forecast struct {
	City    string    `json:"city"`
	Celsius []float64 `json:"celsius"`
}

type place struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

type historyArgs struct {
	City     string     `json:"city"`
	Since    *time.Time `json:"since"`
	Stations []string   `json:"stations,omitempty"`
	Where    *place     `json:"where"`
}

// forecastTool answers days temperatures; it records the arguments it got.
func forecastTool(got chan<- forecastArgs) agent.Tool {
	return agent.Typed("weather.forecast", func(ctx context.Context, a forecastArgs) (forecast, error) {
		if got != nil {
			got <- a
		}
		f := forecast{City: a.City}
		for i := range a.Days {
			f.Celsius = append(f.Celsius, 20+float64(i))
		}
		return f, nil
	})
}

func historyTool() agent.Tool {
	return agent.Typed("weather.history", func(ctx context.Context, a historyArgs) ([]string, error) {
		return a.Stations, nil
	})
}

func mustParse(t testing.TB, src string) *agent.Template {
	t.Helper()
	tpl, err := agent.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// weatherWorld is a platform with the weather app installed on device
// press-1 (key 1), and a started client of it.
type weatherWorld struct {
	p    *platformtest.Platform
	inst *platformtest.Installation
	c    *client.Client
	tpl  *agent.Template
}

func newWeatherWorld(t *testing.T, opts ...client.Option) *weatherWorld {
	t.Helper()
	p := platformtest.New(t)
	app := p.AddAppWithAgents("weather", "", weatherYAML)
	inst := p.Install(p.AddDevice("press-1"), app, platformtest.Dev)
	return &weatherWorld{p: p, inst: inst, c: clienttest.Start(t, inst, opts...), tpl: mustParse(t, weatherYAML)}
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// unusedClient is a client that never starts: Serve refuses mismatched
// tools before it registers anything.
func unusedClient(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(client.WithEnv(map[string]string{}), client.WithSerialNumber("s-1"), client.WithDeviceKey(1),
		client.WithSwarmKey(1), client.WithAppKey(1), client.WithAppName("weather"), client.WithURL("ws://127.0.0.1:1/ws-ua-usr"),
		client.WithSessionWait(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
