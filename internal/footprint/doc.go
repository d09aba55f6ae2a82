// Package footprint measures what the SDK costs a device: the binary size
// of a device program written with the SDK against the same job written by
// hand, and the packages each links.
//
// The job, in both programs (./device with the SDK, ./handwritten with
// gorilla/websocket, crypto/tls, encoding/json and log/slog only):
// configuration from the device agent's environment, a device function
// (echo), one acknowledged publish, one append to the table sensordata,
// one history read; then the program serves its device function until
// SIGINT or SIGTERM. Both print the line "ready" on standard output once
// the job is done.
//
// Check builds both programs alike (CGO_ENABLED=0, -trimpath,
// -ldflags=-s -w) for several architectures and reports the sizes, the
// ratio and the forbidden packages linked; `go run ./internal/footprint/check`
// runs it, and .ci/run fails when it finds the SDK program over MaxRatio ×
// the hand-written one, linking a forbidden package, or grown by more than
// MaxGrowth bytes of content (Content: its sections, without the padding
// between segments) over Baseline, the program before the observation
// hooks, on any of GrowthTargets.
package footprint
