// This file holds pendingTable: the requests waiting for the router's
// answer, by request id.

package engine

// pendingTable maps request ids to their requests. Its slot spares the map
// (an insert and a delete per request) while one request waits at a time,
// as when a device loops over its publications; more go to the map.
type pendingTable struct {
	id   uint64
	req  *request // in the slot; nil when the slot is free
	more map[uint64]*request
}

// put adds req under id.
func (t *pendingTable) put(id uint64, req *request) {
	if t.req == nil {
		t.id, t.req = id, req
		return
	}
	if t.more == nil {
		t.more = map[uint64]*request{}
	}
	t.more[id] = req
}

// get returns the request under id, nil when there is none.
func (t *pendingTable) get(id uint64) *request {
	if t.req != nil && t.id == id {
		return t.req
	}
	return t.more[id]
}

// remove forgets the request under id, if any.
func (t *pendingTable) remove(id uint64) {
	if t.req != nil && t.id == id {
		t.req = nil
		return
	}
	delete(t.more, id)
}
