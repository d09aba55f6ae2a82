// Package folder is the storage backend of a data folder (flockd -data).
package folder
