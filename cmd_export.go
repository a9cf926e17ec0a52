package main

import (
	"errors"
	"io"
)

// TODO(helper): replaced by the real command.
func runExport(args []string, stdout, stderr io.Writer) error {
	return errors.New("not implemented yet")
}
