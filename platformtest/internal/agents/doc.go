// Package agents is the agent runtime of the fake platform: it calls the
// tools of an app's agent template (.ironflock/ai-template.yml) on
// devices as the platform's AI agents do. A topic tool is a device
// function: the runtime takes the device_key the model chose, calls
// <SWARM>.<device_key>.<APP>.<STAGE>.<topic> through the platform's own
// session on the app's realm (the realm.Host it is attached to), with the
// arguments in one of the three conventions a tool must accept (keyword
// arguments, one positional object, positional values in parameter
// order), and hands back the result or the error as the model would read
// it. A delegate tool hands over to another agent.
//
// There is no language model: Invoke calls one tool as a test or a
// developer chose it, and Run plays an agent whose turns a test scripted
// (which tool with which arguments, or the final answer), following
// delegate tools into the named agents and enforcing each agent's
// max_iterations. Every tool call is recorded with its answer.
//
// The package knows the realm seam and package template; the facade
// (platformtest) and the REST API (internal/rest, flockd's tool route)
// resolve installations and hand in the realm and the template.
package agents
