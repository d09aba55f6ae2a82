// Command agent serves the tools of its .ironflock/ai-template.yml — two
// agents, the line assistant and the maintenance planner it reaches
// through a delegate tool, and three typed tools — as device functions of
// a press, and in the same program drives them through the agent runtime
// of the embedded fake platform: one tool in each of the three argument
// conventions, a refused call, then a scripted conversation that follows
// the delegate.
//
//	go run ./examples/agent
//
// With -env it joins a running flockd instead, with the device
// environment of a dotenv file as flockd env writes it, and serves the
// tools until interrupted, so that they can be called with curl through
// flockd's tool route (docs/flockd.md §6):
//
//	go run ./cmd/flockd -config examples/agent/flockd.yml &
//	go run ./cmd/flockd env -format dotenv press-1 > /tmp/press-1.env
//	go run ./examples/agent -env /tmp/press-1.env
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// aiTemplate is the app's agent template.
//
//go:embed .ironflock/ai-template.yml
var aiTemplate []byte

// appName is the app's name, as flockd.yml names it.
const appName = "press-agent"

func main() {
	envFile := flag.String("env", "", "join a running flockd with the device environment of this dotenv `file` (flockd env -format dotenv DEVICE) and serve the tools until interrupted")
	flag.Parse()
	var err error
	if *envFile == "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err = run(ctx, os.Stdout)
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		err = serveDevice(ctx, os.Stdout, client.WithEnvFile(*envFile), nil)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// run serves the tools on the embedded fake and drives them through its
// agent runtime.
func run(ctx context.Context, out io.Writer) error {
	p, err := platformtest.Start(platformtest.WithStartTime(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)))
	if err != nil {
		return err
	}
	defer p.Close()
	app := p.AddAppWithAgents(appName, "", string(aiTemplate))
	inst := p.Install(p.AddDevice("press-1"), app, platformtest.Dev)
	fmt.Fprintf(out, "platform  listening on %s\n", p.URL())

	// The device: a client with the environment its agent injects, serving
	// the tools of the template.
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	svc, err := serve(ctx, c, &press{now: p.Clock().Now})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "press-1   serves %s\n", strings.Join(svc.Procedures(), ", "))

	// The platform's agent runtime calls a tool; its argument convention is
	// not published, and the tool accepts all three.
	args := map[string]any{"sensor": "spindle", "unit": "F"}
	for _, conv := range []platformtest.ArgConvention{platformtest.KeywordArgs, platformtest.ObjectArg, platformtest.PositionalArgs} {
		call, err := p.CallTool(ctx, inst, "line_assistant", "read_temperature", args, platformtest.Convention(conv))
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "runtime   read_temperature %s as %-10s → %s\n", js(call.Arguments), conv, js(call.Result))
	}
	// Invalid arguments are refused before the Go function runs, with a
	// text the model can act on.
	_, err = p.CallTool(ctx, inst, "line_assistant", "read_temperature", map[string]any{"sensor": "belt"})
	var te *platformtest.ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("the invalid call was not refused: %v", err)
	}
	fmt.Fprintf(out, "runtime   read_temperature {\"sensor\":\"belt\"} → %s: %s\n", te.URI, te.Message)

	// A conversation, scripted in place of a language model: the line
	// assistant reads a temperature and hands over to the maintenance
	// planner, who reads the vibration history and books a service.
	run, err := p.RunAgent(ctx, inst, "line_assistant", platformtest.Script{
		"line_assistant": {
			platformtest.UseTool("read_temperature", map[string]any{"sensor": "spindle"}),
			platformtest.UseTool("ask_maintenance", map[string]any{"question": "The spindle runs hot. Does the press need a service?"}),
			platformtest.Answer("The spindle is at 41.5 °C and vibrates more every hour: service SRV-0001 is booked for 23 November."),
		},
		"maintenance_planner": {
			platformtest.UseTool("vibration_history", map[string]any{"samples": 3}),
			platformtest.UseTool("schedule_service", map[string]any{"reason": "spindle vibration up 0.5 mm/s in two hours", "within_days": 2}),
			platformtest.Answer("Bearing wear: vibration rose from 7.0 to 7.5 mm/s in two hours. Booked SRV-0001 for 2026-11-23 06:00 UTC."),
		},
	})
	if err != nil {
		return err
	}
	for _, call := range run.Calls {
		indent := strings.Repeat("  ", call.Depth)
		fmt.Fprintf(out, "agent     %s%s: %s %s → %s\n", indent, call.Agent, call.Tool, js(call.Arguments), js(call.Result))
	}
	fmt.Fprintf(out, "answer    %s\n", run.Answer)
	fmt.Fprintln(out, "done")
	return nil
}

// serve loads the template and serves the press's tools on c.
func serve(ctx context.Context, c *client.Client, p *press) (*agent.Service, error) {
	tpl, err := agent.Parse(aiTemplate) // on a device: agent.LoadDefault()
	if err != nil {
		return nil, err
	}
	return agent.Serve(ctx, c, tpl, p.tools()...)
}

// serveDevice runs the press with the environment env gives until ctx
// ends; ready, when set, is called once the tools are served.
func serveDevice(ctx context.Context, out io.Writer, env client.Option, ready func()) error {
	c, err := client.New(env)
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	svc, err := serve(ctx, c, &press{now: time.Now})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s serves %s until interrupted\n", c.Identity().DeviceName, strings.Join(svc.Procedures(), ", "))
	if ready != nil {
		ready()
	}
	<-ctx.Done()
	return nil
}

// js renders a value as compact JSON.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
