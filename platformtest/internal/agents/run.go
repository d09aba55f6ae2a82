// This file plays agents whose turns a test scripted, in place of a
// language model: each turn calls one tool of the agent (a topic tool on a
// device, or a delegate tool, which activates the named agent until it
// answers) or gives the agent's answer. An agent makes at most its
// max_iterations tool calls per activation; a further one ends the
// activation without an answer.

package agents

import (
	"context"
	"fmt"
	"maps"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// Turn is one step of a scripted agent: a call of Tool with Arguments,
// or, with Tool "", the agent's final Answer.
type Turn struct {
	Tool      string
	Arguments map[string]any
	Answer    string
}

// RunRequest asks for a scripted run.
type RunRequest struct {
	Realm    realm.Info
	Template string
	// Agent is the agent the run starts with; "" means the main agent.
	Agent string
	// DeviceKey is the device topic tools run on unless a turn's
	// arguments carry device_key.
	DeviceKey     int
	Convention    Convention
	KeepDeviceKey bool
	// Script holds each agent's turns, consumed in order as the agent
	// acts, across its activations.
	Script map[string][]Turn
}

// Run is the outcome of a scripted run.
type Run struct {
	Agent string // the agent the run started with
	// Answer is its final answer; "" when it was stopped.
	Answer string
	// Stopped says why the agent gave no answer: it reached its
	// max_iterations. "" when it answered.
	Stopped string
	// Calls are the run's tool calls in the order they were answered: a
	// delegate's calls come before the delegate call itself.
	Calls []Call
}

// runner plays one run.
type runner struct {
	rt    *Runtime
	req   RunRequest
	turns map[string][]Turn
	calls []Call
}

// Run plays a scripted run and records its calls. The error reports a
// request or a script that cannot be played (see the Err… sentinels) or
// the end of ctx; the run so far is returned with it.
func (rt *Runtime) Run(ctx context.Context, req RunRequest) (Run, error) {
	tpl, err := rt.template(req.Template)
	if err != nil {
		return Run{}, err
	}
	a, err := agentOf(tpl, req.Agent)
	if err != nil {
		return Run{}, err
	}
	r := &runner{rt: rt, req: req, turns: maps.Clone(req.Script)}
	for name := range r.turns {
		if _, err := agentOf(tpl, name); name == "" || err != nil {
			return Run{}, fmt.Errorf("%w: the script has turns for agent %q, which the template lacks", ErrScript, name)
		}
	}
	run := Run{Agent: a.Name}
	run.Answer, run.Stopped, err = r.activate(ctx, tpl.Agents, a.Name, 0)
	run.Calls = r.calls
	return run, err
}

// next takes the agent's next turn.
func (r *runner) next(agent string) (Turn, bool) {
	ts := r.turns[agent]
	if len(ts) == 0 {
		return Turn{}, false
	}
	r.turns[agent] = ts[1:]
	return ts[0], true
}

// dropActivation drops the agent's turns up to and including its next
// answer: the rest of an activation that was stopped.
func (r *runner) dropActivation(agent string) {
	for {
		t, ok := r.next(agent)
		if !ok || t.Tool == "" {
			return
		}
	}
}

// activate plays one activation of agent until it answers or is stopped.
func (r *runner) activate(ctx context.Context, agents map[string]*template.Agent, agent string, depth int) (answer, stopped string, err error) {
	a := agents[agent]
	for iterations := 0; ; iterations++ {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		turn, ok := r.next(agent)
		if !ok {
			return "", "", fmt.Errorf("%w: agent %q has no turn left; script its answer", ErrScript, agent)
		}
		if turn.Tool == "" {
			return turn.Answer, "", nil
		}
		if iterations == a.MaxIterations {
			r.dropActivation(agent)
			return "", fmt.Sprintf("agent %q reached max_iterations (%d) without answering", agent, a.MaxIterations), nil
		}
		tl, err := toolOf(a, turn.Tool)
		if err != nil {
			return "", "", err
		}
		var c Call
		if tl.Delegate == "" {
			if c, err = r.rt.callTopic(ctx, r.request(), a, tl, turn.Arguments); err != nil {
				return "", "", err
			}
		} else if c, err = r.delegate(ctx, agents, a, tl, turn, depth); err != nil {
			return "", "", err
		}
		c.Depth = depth
		r.rt.remember(c)
		r.calls = append(r.calls, c.clone())
	}
}

// delegate plays delegate tool tl: the agent it names acts until it
// answers, and its answer is the tool's result.
func (r *runner) delegate(ctx context.Context, agents map[string]*template.Agent, a *template.Agent, tl *template.Tool, turn Turn, depth int) (Call, error) {
	args, err := jsonObject(turn.Arguments)
	if err != nil {
		return Call{}, err
	}
	c := Call{Realm: r.req.Realm.Name, Agent: a.Name, Tool: tl.Name, Delegate: tl.Delegate, Convention: r.req.Convention, Arguments: args}
	if depth+1 > MaxDelegation {
		c.Error, c.Message = "max_delegation", fmt.Sprintf("delegation deeper than %d agents", MaxDelegation)
	} else {
		answer, stopped, err := r.activate(ctx, agents, tl.Delegate, depth+1)
		switch {
		case err != nil:
			return Call{}, err
		case stopped != "":
			c.Error, c.Message = "max_iterations", stopped
		default:
			c.Result = answer
		}
	}
	c.Time = r.rt.now()
	return c, nil
}

// request is the Request topic tools of the run are called with.
func (r *runner) request() Request {
	return Request{Realm: r.req.Realm, DeviceKey: r.req.DeviceKey, Convention: r.req.Convention, KeepDeviceKey: r.req.KeepDeviceKey}
}
