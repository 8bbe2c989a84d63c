package notices

import "sync"

// maxPendingNames bounds the names pendingVersions remembers; past it they are forgotten at once
// and the floor rises, which moves every name's version (answers are then computed again, never
// stale).
const maxPendingNames = 100_000

// pendingVersions are the mempool versions of named principals: the mempool
// version of the last change that named each, or the floor, the version of the last change that
// named none (or the version at which the names were forgotten), whichever is higher. A name's
// version therefore moves with every mempool change that may touch its pending state, and only
// with those.
type pendingVersions struct {
	mu    sync.RWMutex
	floor uint64
	named map[string]uint64
}

// moved records a mempool change at version v that touched the names given (every name when nil).
func (p *pendingVersions) moved(v uint64, names []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if names == nil || len(p.named)+len(names) > maxPendingNames {
		p.floor, p.named = v, nil // every name is at v now
		return
	}
	if p.named == nil {
		p.named = make(map[string]uint64, len(names))
	}
	for _, n := range names {
		p.named[n] = v
	}
}

// version is the newest version of the names given.
func (p *pendingVersions) version(names []string) uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	v := p.floor
	for _, n := range names {
		v = max(v, p.named[n])
	}
	return v
}
