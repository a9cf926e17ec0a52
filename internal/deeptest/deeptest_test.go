package deeptest

import "testing"

// TestLocation reads a committed view, centre digit for digit.
func TestLocation(t *testing.T) {
	l := Location(t, "p8007")
	if l.Iterations < 1 || len(l.Re.String()) < 30 || l.Validate() != nil {
		t.Errorf("p8007: %v", l)
	}
}
