package export

import (
	"errors"
	"strings"
	"testing"
)

// TestLowSpace: the warning names the folder, the free space and the estimate when the free
// space is under EstimateSize; nothing when it is enough or unknown; and FreeSpace answers
// for a real folder here.
func TestLowSpace(t *testing.T) {
	need := EstimateSize(1000, 1000)
	fixed := func(n int64, err error) func(string) (int64, error) {
		return func(string) (int64, error) { return n, err }
	}
	if got := lowSpace(fixed(need-1, nil), "/data", 1000, 1000); !strings.HasPrefix(got, "/data has ") || !strings.Contains(got, HumanBytes(need)) {
		t.Errorf("one byte short: %q", got)
	}
	if got := lowSpace(fixed(need, nil), "/data", 1000, 1000); got != "" {
		t.Errorf("exactly enough: %q", got)
	}
	if got := lowSpace(fixed(0, errors.New("unknown")), "/data", 1000, 1000); got != "" {
		t.Errorf("unknown free space: %q", got)
	}
	if n, err := FreeSpace(t.TempDir()); err == nil && n <= 0 {
		t.Errorf("FreeSpace of a temporary folder: %d", n)
	}
}
