// Command flocksim drives a fleet of simulated devices from one process:
// thousands of devices, each an SDK client of its own (package client),
// joining flockd, appending rows of a template's table on a schedule,
// publishing, serving and calling device functions, through the stages of
// a scenario file: ramp, hold, reconnect storm, stop.
//
//	go run ./cmd/flocksim -scenario FILE [-out FILE] [-shard i/n]
//	                      [-source 127.0.0.1,127.0.0.2,…] [-flockd PATH]
//	                      [-live 1s]
//	go run ./cmd/flocksim -version
//
// The devices come from one of three places (docs/flocksim.md has the
// scenario format):
//
//   - flockd: flocksim builds cmd/flockd (or runs flockd.bin, or -flockd)
//     in a temporary folder with a configuration of fleet.devices devices
//     sim-00001… in one project, the app installed on each, on a free
//     loopback port kept over restarts, with flockd.args (-data DIR,
//     -db URL, …), and stops it at the end. Only then can a storm kill
//     flockd (kill -9) and start it again.
//   - fleet.env_file: a running flockd's environment file (its -env-file):
//     the first fleet.devices installations of the app in the stage, by
//     device key, with their per-app credentials.
//   - fleet.create: a running flockd's REST API makes the devices
//     (PREFIX00001…, found again by name when they exist) and installs
//     the app on each; the per-app credential comes from the console
//     (GET /env/{device}) when it answers, else the device joins with the
//     legacy credential (serial, serial), which flockd -strict-auth
//     refuses.
//
// Each device is a client.Client with the installation's environment
// (client.WithEnv), its links dialed through client.WithDialer from one of
// the -source addresses in turn (so that a fleet past one address's
// ephemeral ports can be held; 127.0.0.0/8 is all loopback on Linux), the
// connection kept so that a "drop" storm can cut every link at once. The
// schedules are shared: n devices appending every P fire n/P appends a
// second, the devices in turn, without a timer per device; a device whose
// previous operation of that kind still waits (through a reconnect) is
// skipped, and counted.
//
// Stages run in order; the first is a ramp. A ramp starts the clients of
// the devices not yet joined at the given rate and ends when all have
// joined (or its timeout passed: they are reported missing and flocksim
// fails). The load starts after the first ramp. A hold keeps it for a
// duration. A storm cuts every link (drop) or kills flockd with SIGKILL and
// starts it again with the same flags and data (kill), then waits until
// every device has joined a new session with the SDK's own reconnection
// (default backoff, same credentials). Stop stops the schedules, waits for
// the operations in flight and stops every client.
//
// While it runs, a line on standard error every -live interval gives the
// stage, the devices joined, the acknowledgements and their rate, the
// stage's p99, failures, skips and resident memory. At each stage's end
// flocksim reports, in the JSON summary (standard output, or -out FILE):
// the devices joined and missing, the joins and their rate, a storm's time
// until all were back (and flockd's own restart), the operations
// acknowledged with their rate and latency (p50, p99, max, from the call
// to its acknowledgement, from a log-linear histogram about 1.6 % wide),
// the failures by operation and URI (the WAMP error's, else the SDK's
// reason: outcome unknown, connection lost, timeout), and memory: this
// process's resident memory and Go heap after a garbage collection, and
// their growth since before the first client was made divided by the
// clients started (bytes per device), with flockd's resident memory per
// session when flocksim runs it.
//
// With verify: true, every acknowledged append is read back through the
// platform (a client's table query: by time windows when tsp is generated
// as "now", else device by device) and must be stored exactly once;
// appends whose outcome was unknown to the device may be stored or not.
// A missing device or a lost or duplicated row makes flocksim exit with
// status 1 after writing the summary.
//
// -shard i/n drives only the devices whose index in the scenario (by
// device key, or by name for fleet.create) modulo n is i-1, so that n
// flocksim processes, on one machine or several, split one scenario;
// each reports its own share. A call's target is the next device of the
// same process.
package main
