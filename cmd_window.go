package main

import "errors"

// TODO(helper): replaced by the real window.
func runWindow(args []string) error { return errors.New("not implemented yet") }
