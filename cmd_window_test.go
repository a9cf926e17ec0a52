package main

import (
	"errors"
	"strings"
	"testing"
)

func TestWindowBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--renderer=vulkan"}, {"--zoom=-1"}, {"--size=1x"}, {"--center=1"}} {
		err := runWindow(args)
		var ee exitError
		if !errors.As(err, &ee) || ee.code != 2 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want a one-line usage error", args, err)
		}
	}
}
