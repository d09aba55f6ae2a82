// Package memory is the storage backend that keeps nothing beyond the process.
package memory
