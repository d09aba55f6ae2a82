// Command flockbench measures what each operation costs a client: CPU time
// per operation, allocations and bytes allocated per operation, and
// throughput, for the SDK (package client), a raw nexus v3 client and the
// floor client (internal/floorclient: pre-encoded messages over
// gorilla/websocket, the least any Go client pays), against a flockd
// running in another process so that the router's CPU is not counted.
//
//	go run ./cmd/flockbench [-duration 3s] [-count 1] [-warmup 500ms]
//	                        [-scenarios pub1,pub16,call1,call16,call1-json,…]
//	                        [-clients sdk,sdk-any,sdk-hooks,nexus,floor,floor-1g]
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
//	pub1          acknowledged publish, one in flight
//	pub16         acknowledged publish, 16 goroutines sharing one client
//	call1         call of a device function, one caller
//	call16        call, 16 goroutines sharing one client
//	call1-json    call1 with every client in wamp.2.json
//	call16-json   call16 in wamp.2.json
//	serve1        invocations served: the client is the callee, one call in flight
//	serve16       invocations served, 16 calls in flight
//	serve1-json   serve1 with the callee in wamp.2.json
//	serve16-json  serve16 in wamp.2.json
//
// The callee of the calls is an SDK client (device "callee", function
// "echo" returning its first argument) in a child process: flockbench
// starts itself again in callee mode, so the caller's CPU is measured
// alone. In the serve scenarios the measured client is the callee: it
// registers the device function "serve" on the caller's device, and a
// driver (flockbench -driver, the floor client in a child process,
// pipelining 1 or 16 calls over a connection of its own for each interval)
// calls it with the row; an operation is an invocation served (received,
// decoded, handled, answered), and only the callee's CPU is counted.
//
// The clients: "sdk" is the SDK as an app uses it, decoding a call's
// result into a struct (client.Into, one per caller) and an invocation's
// arguments too (client.LazyArgs), answering with that struct; "sdk-any"
// takes them in wire form instead (a *Result, an invocation's Args, which
// it answers with); "sdk-hooks" is "sdk" with a counting hook
// (client.WithHooks: what observing the client costs; no serve
// scenarios); "nexus" is a raw nexus client (no serve scenarios);
// "floor" is the floor client, with pre-encoded messages, and in the serve
// scenarios the floor callee, answering every invocation with a
// pre-encoded YIELD of the row. The client "floor-1g" is the floor client
// with one goroutine keeping 16 requests in flight (pipelined); it runs
// pub16, call16 and call16-json.
//
// Each client and scenario runs alone, one after another: connect,
// warm-up, one interval of -duration, disconnect. -count rounds repeat
// this, the clients of a scenario back to back in each round (in reverse
// order every other round), so that the machine's load weighs on them
// alike. A run that fails (a link dropped, a call answered with an error)
// prints the error with the last lines of the logs of flockd (when it
// started it), the callee and the driver. For each interval, CPU per operation is the user and system CPU
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
// flockbench -router measures the routers instead of the clients: flockd
// against a bare nexus router carrying the same loads, side by side.
//
//	go run ./cmd/flockbench -router [-duration 3s] [-count 1] [-warmup 500ms]
//	                        [-router-scenarios fan10,fan100,fan1000,call16,join]
//	                        [-routers flockd,nexus,nexus-cra] [-flockd PATH]
//	                        [-router-cpuprofile DIR] [-json]
//
// Each round starts fresh routers: a flockd with its default flags (the
// recording on, the console served) and the bare nexus router, nexus/v3/
// router behind nexus's own WebSocket server with the platform's keepalive
// (flockbench starts itself again with -nexus-router), once with anonymous
// authentication ("nexus") and once with WAMP-CRA on the caller's
// credential ("nexus-cra"), on flockd's realm. The peers are minimal
// sessions in this process (pre-encoded msgpack, announcing the SDK's
// roles and features), so every router gets the same bytes:
//
//	fan10    10 subscribers, one publisher at 1000 acknowledged publications/s
//	fan100   100 subscribers, 1000 publications/s
//	fan1000  1000 subscribers, 100 publications/s
//	call16   16 callers, one call each in flight, to one echoing callee
//	join     4 goroutines joining and leaving (GOODBYE) in a loop
//
// An operation is a delivered EVENT, a completed call or a join; CPU per
// operation is the router process's user and system time (from
// /proc/PID/stat, Linux only) over the operations counted in the interval,
// the ratios compare it with the bare routers' in the same round (the
// median of the per-round ratios), and the resident memory (VmRSS) is read
// at the end of the interval, with its peak (VmHWM). After a fan-out
// interval flockbench waits for the events of the publications made and
// reports those that never came as lost (nexus drops what a subscriber's
// 64-slot queue cannot take). -router-cpuprofile writes a CPU profile of
// each router, each round, into a directory (flockd -cpuprofile).
//
// The bounds flockd is held to (issue 26), all against the bare routers in
// the same run: CPU per delivered event (fan10, fan100, fan1000) and per
// routed call (call16) at most 1.1 × nexus's, CPU per join at most 1.5 ×
// nexus-cra's, resident memory in fan1000 at most 1.5 × nexus's.
// docs/performance.md holds a run: three rounds on a shared 2-core
// machine at load average 5–8 gave 0.84 ×, 0.50 × and 0.60 × nexus per
// event, 0.88 × per call, 0.98 × nexus-cra per join and 1.30 × the memory
// (104 MiB against 77 MiB); before, flockd's fan1000 held 472 MiB and a
// join cost 2.43 × nexus-cra's. Per call the ratio moves with the
// machine's load (0.88–1.15 × at load average 4–8, up to 1.43 × at 10):
// compare it over several runs.
//
// -with-js and -with-python also run the optional autobahn-js and
// autobahn-python scripts under scripts/ (they need node with npm
// dependencies installed, or python3 with autobahn; FLOCKBENCH_PYTHON
// names the interpreter) with the same row, warm-up, duration and count,
// and add their figures (CPU per operation and throughput; allocations are
// not comparable) to the table, with a column of the Go clients' CPU
// relative to autobahn-js's; no Go test or CI needs them. autobahn-js runs
// the publish and call scenarios (the JSON ones with its default JSON
// serializer, the others with msgpack), autobahn-python those in msgpack.
package main
