// Package memory is the storage backend that keeps nothing after the process.
package memory
