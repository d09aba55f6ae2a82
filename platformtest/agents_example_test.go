package platformtest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest"
)

// exampleAgents is an agent template: a main agent with a tool on the
// device and a delegate to a second agent, which has a tool of its own.
const exampleAgents = `assistant:
  main: true
  system_prompt: You help operators.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 3
  tools:
    read_temperature:
      description: Reads a temperature sensor.
      topic: read_temperature
      parameters:
        type: object
        properties: {sensor: {type: string}, unit: {type: string}}
        required: [sensor]
    ask_expert:
      description: Asks the maintenance expert.
      delegate: expert
expert:
  system_prompt: You plan maintenance.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 2
  tools:
    book:
      description: Books a service.
      topic: book_service
`

// The agent runtime calls a device function as the platform's AI agents
// do, in the argument convention a test chooses; RunAgent plays agents
// whose turns the test scripts.
func ExamplePlatform_CallTool() {
	p, err := platformtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	app := p.AddAppWithAgents("press", "", exampleAgents, platformtest.Key(5))
	in := p.Install(p.AddDevice("press-1", platformtest.Key(7)), app, platformtest.Dev)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dev, err := join(ctx, p, in) // the device, here a raw WAMP session
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	echo := func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return client.InvokeResult{Args: wamp.List{fmt.Sprintf("args %v kwargs %v", inv.Arguments, inv.ArgumentsKw)}}
	}
	for _, topic := range []string{"read_temperature", "book_service"} {
		if err := dev.Register("1.7.5.DEV."+topic, echo, nil); err != nil {
			log.Fatal(err)
		}
	}

	args := map[string]any{"sensor": "spindle", "unit": "C"}
	for _, conv := range []platformtest.ArgConvention{platformtest.KeywordArgs, platformtest.ObjectArg, platformtest.PositionalArgs} {
		call, err := p.CallTool(ctx, in, "assistant", "read_temperature", args, platformtest.Convention(conv))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(call.Procedure, conv, call.Result)
	}

	run, err := p.RunAgent(ctx, in, "", platformtest.Script{
		"assistant": {platformtest.UseTool("ask_expert", nil), platformtest.Answer("booked")},
		"expert":    {platformtest.UseTool("book", nil), platformtest.Answer("done")},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range run.Calls {
		fmt.Println(c.Depth, c.Agent, c.Tool, c.Result)
	}
	fmt.Println(run.Answer, len(p.ToolCalls()))
	// Output:
	// 1.7.5.DEV.read_temperature keyword args [] kwargs map[sensor:spindle unit:C]
	// 1.7.5.DEV.read_temperature object args [map[sensor:spindle unit:C]] kwargs map[]
	// 1.7.5.DEV.read_temperature positional args [spindle C] kwargs map[]
	// 1 expert book args [] kwargs map[]
	// 0 assistant ask_expert done
	// booked 5
}
