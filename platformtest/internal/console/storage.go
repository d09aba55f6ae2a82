// This file holds what the overview shows of where the platform keeps its
// world: the data folder (or memory), its size on disk, the rows and file
// objects kept, and the bound of the authentication log.

package console

// Storage is where the platform keeps its world, as the overview shows
// it. The platform fills it (Config.Storage).
type Storage struct {
	Folder string // the data folder; "" when everything is in memory
	// Tables says where the table rows are kept when not with the rest:
	// the PostgreSQL server and database (never a password); "".
	Tables  string
	Bytes   int64 // the folder's size on disk
	Rows    int64 // table rows kept, error-logs included
	Objects int64 // file objects kept
	// RowLimit bounds the rows kept in memory (no data folder); 0: none.
	RowLimit int64
	// ByteLimit bounds the bytes of the rows kept in memory; 0: none.
	ByteLimit int64
	// MemoryBytes is what the rows kept in memory hold, as the store
	// estimates it.
	MemoryBytes int64
	Full        bool   // the in-memory store refuses appends at its bound
	Err         string // why the figures could not be read, if so
}

// storageView is the storage part of the overview.
type storageView struct {
	Storage
	AuthLog, AuthLimit int
	AuthDropped        int64
}

// storage gathers the storage part of the overview.
func (c *Console) storage() storageView {
	var v storageView
	if c.cfg.Storage != nil {
		v.Storage = c.cfg.Storage()
	}
	v.AuthLog, v.AuthLimit, v.AuthDropped = len(c.cfg.Router.AuthLog()), c.cfg.Router.AuthLogLimit(), c.cfg.Router.AuthLogDropped()
	return v
}
