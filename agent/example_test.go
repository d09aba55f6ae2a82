package agent_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// exampleTemplate is an app's .ironflock/ai-template.yml with one tool.
const exampleTemplate = `assistant:
  main: true
  system_prompt: You help operators of the press.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 5
  tools:
    read_temperature:
      description: Reads a temperature sensor of the press.
      topic: read_temperature
      parameters:
        type: object
        properties:
          sensor: {type: string, enum: [spindle, coolant]}
          unit: {type: string, enum: [C, F]}
        required: [sensor]
`

// temperatureArgs are the parameters of read_temperature.
type temperatureArgs struct {
	Sensor string  `json:"sensor"`
	Unit   *string `json:"unit"` // optional
}

func readTemperature(ctx context.Context, a temperatureArgs) (map[string]any, error) {
	celsius := map[string]float64{"spindle": 41.5, "coolant": 18}[a.Sensor]
	if a.Unit != nil && *a.Unit == "F" {
		return map[string]any{"sensor": a.Sensor, "value": celsius*9/5 + 32, "unit": "F"}, nil
	}
	return map[string]any{"sensor": a.Sensor, "value": celsius, "unit": "C"}, nil
}

func ExampleServe() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := platformtest.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	app := p.AddAppWithAgents("press", "", exampleTemplate)
	inst := p.Install(p.AddDevice("press-1"), app, platformtest.Dev)

	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer c.Stop(context.Background())

	tpl, err := agent.Parse([]byte(exampleTemplate)) // on a device: agent.LoadDefault()
	if err != nil {
		fmt.Println(err)
		return
	}
	svc, err := agent.Serve(ctx, c, tpl, agent.Typed("read_temperature", readTemperature))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("serving", svc.Procedures())

	// The platform's agent runtime calls the tool, in any convention.
	for _, conv := range []platformtest.ArgConvention{platformtest.KeywordArgs, platformtest.ObjectArg, platformtest.PositionalArgs} {
		call, err := p.CallTool(ctx, inst, "assistant", "read_temperature",
			map[string]any{"sensor": "spindle", "unit": "F"}, platformtest.Convention(conv))
		fmt.Println(conv, call.Result, err)
	}
	// Invalid arguments never reach the Go function.
	_, err = p.CallTool(ctx, inst, "assistant", "read_temperature", map[string]any{"sensor": "belt"})
	var te *platformtest.ToolError
	if errors.As(err, &te) {
		fmt.Println(te.URI)
		fmt.Println(te.Message)
	}
	// Output:
	// serving [1.1.1.DEV.read_temperature]
	// keyword map[sensor:spindle unit:F value:106.7] <nil>
	// object map[sensor:spindle unit:F value:106.7] <nil>
	// positional map[sensor:spindle unit:F value:106.7] <nil>
	// wamp.error.invalid_argument
	// invalid arguments: parameter "sensor": value must be one of 'spindle', 'coolant'
}

func ExampleServe_mismatch() {
	tpl, err := agent.Parse([]byte(exampleTemplate))
	if err != nil {
		fmt.Println(err)
		return
	}
	type wrongArgs struct {
		Sensor int    `json:"sensor"`
		Unit   string `json:"unit"`
		Probe  string `json:"probe,omitempty"`
	}
	c, _ := client.New(client.WithEnv(map[string]string{"DEVICE_SERIAL_NUMBER": "s-1", "DEVICE_KEY": "1", "SWARM_KEY": "1",
		"APP_KEY": "1", "APP_NAME": "press", "ENV": "DEV", "DEVICE_ENDPOINT_URL": "http://127.0.0.1:1"}))
	_, err = agent.Serve(context.Background(), c, tpl,
		agent.Typed("read_temperature", func(ctx context.Context, a wrongArgs) (string, error) { return "", nil }),
		agent.Untyped("read_pressure", func(ctx context.Context, a map[string]any) (any, error) { return nil, nil }))
	fmt.Println(errors.Is(err, agent.ErrMismatch))
	fmt.Println(err)
	// Output:
	// true
	// agent: Serve: 4 mismatches between ai-template.yml and the Go tools
	// 	ai-template.yml:13:9: assistant.tools.read_temperature.parameters.properties: field wrongArgs.Probe (json "probe") is not a parameter of the tool; declare "probe" under properties, or tag the field `json:"-"`
	// 	ai-template.yml:14:20: assistant.tools.read_temperature.parameters.properties.sensor.type: parameter "sensor" is a string, but field wrongArgs.Sensor is int; use string (or time.Time, []byte, a TextUnmarshaler)
	// 	ai-template.yml:15:11: assistant.tools.read_temperature.parameters.properties.unit: parameter "unit" is optional, but field wrongArgs.Unit is required (no pointer, no omitempty); add "unit" to required, or make the field a pointer or tag it omitempty
	// 	ai-template.yml: the Go tool of topic "read_pressure" serves no topic tool of ai-template.yml (its topics: read_temperature)
}
