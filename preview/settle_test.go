package preview

import (
	"testing"
	"time"
)

// settled reports whether the worker has nothing left to do for the requests made so far:
// none pending, none rendering or accumulating, no colour-only request waiting or being
// coloured, and no refine to come (the latest request is not an interactive one). What it
// delivers for them has then been delivered: the loops deliver before they go idle.
func (w *Worker) settled() bool {
	w.mu.Lock()
	quiet := w.pending == nil && !w.busy && w.recolour == nil && !w.latest.Interactive
	w.mu.Unlock()
	if !quiet || !w.rmu.TryLock() {
		return false
	}
	w.rmu.Unlock()
	return true
}

// settle waits until the worker has settled (Worker.settled), failing the test after 60 s.
func settle(t *testing.T, w *Worker) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !w.settled() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatal("the worker did not settle within 60 s")
		}
	}
}
