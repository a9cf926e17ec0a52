// Package nav keeps the explorer's navigation state: a bounded back/forward history of the
// locations visited, as in a web browser. It depends on the model (fractal) only.
package nav

import "mandelscope/fractal"

// DefaultLimit is the number of locations a zero History keeps.
const DefaultLimit = 200

// History is a bounded back/forward list of visited locations, as in a web browser. Its zero
// value is empty and keeps DefaultLimit entries.
type History struct {
	// Limit is the most entries kept (the oldest are dropped); 0 means DefaultLimit.
	Limit int
	items []fractal.Location
	pos   int // index of the current entry when items is not empty
}

func (h *History) limit() int {
	if h.Limit > 0 {
		return h.Limit
	}
	return DefaultLimit
}

// Visit makes l the current location: the forward entries are dropped and l goes after the
// current one. Visiting the current location again does nothing.
func (h *History) Visit(l fractal.Location) {
	if len(h.items) > 0 {
		if h.items[h.pos] == l {
			return
		}
		h.items = h.items[:h.pos+1]
	}
	h.items = append(h.items, l)
	if over := len(h.items) - h.limit(); over > 0 {
		h.items = append(h.items[:0], h.items[over:]...)
	}
	h.pos = len(h.items) - 1
}

// Replace puts l in the place of the current entry, no step of its own (the same place seen
// another way: its colouring or iterations changed); an empty history gets l as its first.
func (h *History) Replace(l fractal.Location) {
	if len(h.items) == 0 {
		h.items = append(h.items, l)
		h.pos = 0
		return
	}
	h.items[h.pos] = l
}

// Current returns the current location, if any.
func (h *History) Current() (fractal.Location, bool) {
	if len(h.items) == 0 {
		return fractal.Location{}, false
	}
	return h.items[h.pos], true
}

// CanBack reports whether Back has somewhere to go.
func (h *History) CanBack() bool { return len(h.items) > 0 && h.pos > 0 }

// CanForward reports whether Forward has somewhere to go.
func (h *History) CanForward() bool { return h.pos+1 < len(h.items) }

// Back steps back and returns the location there; false when there is none.
func (h *History) Back() (fractal.Location, bool) {
	if !h.CanBack() {
		return fractal.Location{}, false
	}
	h.pos--
	return h.items[h.pos], true
}

// Forward steps forward and returns the location there; false when there is none.
func (h *History) Forward() (fractal.Location, bool) {
	if !h.CanForward() {
		return fractal.Location{}, false
	}
	h.pos++
	return h.items[h.pos], true
}

// Len returns the number of entries.
func (h *History) Len() int { return len(h.items) }
