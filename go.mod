module github.com/flockgo/ironflock

go 1.25

require (
	github.com/cenkalti/backoff/v4 v4.3.0 // indirect
	github.com/gammazero/nexus/v3 v3.3.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/text v0.14.0 // indirect
)
