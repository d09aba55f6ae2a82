// Command flockbench measures what each operation costs a client: CPU time
// per operation, allocations and bytes allocated per operation, and
// throughput, for the SDK (package client), a raw nexus v3 client and the
// floor client (internal/floorclient: pre-encoded messages over
// gorilla/websocket, the least any Go client pays), against a flockd
// running in another process so that the router's CPU is not counted.
//
//	go run ./cmd/flockbench [-duration 3s] [-count 1] [-warmup 500ms]
//	                        [-scenarios pub1,pub16,call1,call16]
//	                        [-clients sdk,nexus,floor,floor-1g]
//	                        [-flockd PATH | -flockd-env FILE] [-json]
//	                        [-with-js] [-with-python]
//	go run ./cmd/flockbench -memory [-settle 2s] [-subscriptions 3000]
//
// By default it builds cmd/flockd into a temporary directory (run it from
// the repository), starts it on a free loopback port with a configuration
// of one app installed on two devices ("caller" and "callee"), waits until
// its environment file is written and its HTTP endpoint answers, and stops
// it at the end, on error and on interrupt. -flockd uses a built flockd
// binary instead; -flockd-env uses an already running flockd through the
// environment file it wrote (the first two installations of one app and
// stage serve as caller and callee).
//
// Scenarios, all with the same row (about 100 bytes of msgpack, plus the
// device metadata the SDK adds to a publication's keyword arguments; the
// nexus and floor clients send the same arguments):
//
//	pub1    acknowledged publish, one in flight
//	pub16   acknowledged publish, 16 goroutines sharing one client
//	call1   call of a device function, one caller
//	call16  call, 16 goroutines sharing one client
//
// The callee of the calls is an SDK client (device "callee", function
// "echo" returning its first argument) in a child process: flockbench
// starts itself again in callee mode, so the caller's CPU is measured
// alone. The client "floor-1g" is the floor client with one goroutine
// keeping 16 requests in flight (pipelined); it runs pub16 and call16.
//
// Each client and scenario runs alone, one after another: connect,
// warm-up, one interval of -duration, disconnect. -count rounds repeat
// this, the clients of a scenario back to back in each round (in reverse
// order every other round), so that the machine's load weighs on them
// alike. For each interval, CPU per operation is the user and system CPU
// time of this process (getrusage RUSAGE_SELF) divided by the operations
// completed, allocations and bytes come from runtime.ReadMemStats,
// throughput from the wall clock. With -count above 1 the interval with
// the median CPU per operation is printed. The ratio columns compare CPU
// per operation with the floor client's in the same scenario (and, for 16
// in flight, with floor-1g's): the median of the per-round ratios.
//
// -memory measures memory instead of CPU, on Linux (from /proc/<pid>/status):
// it builds the two footprint programs of internal/footprint (the device
// program written with the SDK and the same job written by hand) stripped
// for this machine, runs each as the caller's device until it has done its
// job and printed "ready", waits -settle, and reads its resident memory
// (VmRSS, with its anonymous and file-backed parts, and the peak VmHWM).
// Then an SDK client in a child process (flockbench -subscriber) joins as
// the callee's device and subscribes to -subscriptions topics; its memory
// is read once joined and once subscribed, each time after a garbage
// collection, and printed per 1,000 subscriptions (RSS and Go heap).
//
// -with-js and -with-python also run the optional autobahn-js and
// autobahn-python scripts under scripts/ (they need node with npm
// dependencies installed, or python3 with autobahn; FLOCKBENCH_PYTHON
// names the interpreter) with the same row, warm-up, duration and count,
// and add their figures (CPU per operation and throughput; allocations are
// not comparable) to the table; no Go test or CI needs them.
package main
