// This file holds the log lines of entity changes: the first few of one
// call (Do, Update, Transact) are logged one by one, the rest counted and
// logged as one line when the call ends, so that provisioning 100,000
// devices writes a few lines, not 100,000 (each line costs as much as the
// change it tells of).

package registry

import (
	"maps"
	"slices"
)

// entityLines is how many entity lines one call logs one by one.
const entityLines = 20

// EntityInfo logs an entity change at Info, or counts it once the call
// logged entityLines (the reconciliation's "device added" lines too).
func (s *State) EntityInfo(msg string, args ...any) {
	if s.lines < entityLines {
		s.lines++
		s.log.Info(msg, args...)
		return
	}
	if s.unlogged == nil {
		s.unlogged = map[string]int{}
	}
	s.unlogged[msg]++
}

// endLines logs how many entity changes of the call ending were counted
// rather than logged, by message, and starts the count again.
func (s *State) endLines() {
	if len(s.unlogged) > 0 {
		args := []any{}
		for _, msg := range slices.Sorted(maps.Keys(s.unlogged)) {
			args = append(args, msg, s.unlogged[msg])
		}
		s.log.Info("registry: more entity changes of the same call, counted rather than logged one by one", args...)
	}
	s.lines, s.unlogged = 0, nil
}
