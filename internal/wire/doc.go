// Package wire holds the names both sides of the IronFlock edge protocol
// agree on: environment variables, realm and URI shapes, error URIs and
// payload field names. It holds names only — no behaviour — so that the SDK
// (package client) and the fake platform (package platformtest) cannot drift
// apart on a spelling while still being written independently.
//
// The repository's docs/wire.md describes the protocol these names belong
// to; comments cite its sections.
package wire
