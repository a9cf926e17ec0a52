// Command mandelscope is a Mandelbrot explorer: with no arguments it opens the window; its
// subcommands export images, manage bookmarks, probe escape counts and benchmark the preview.
//
//	mandelscope                      open the explorer window
//	mandelscope export ...           render a view to a PNG of up to 32K
//	mandelscope bookmarks ...        list, add, remove, rename, import and export bookmarks
//	mandelscope gradients ...        list, import and export gradients of your own
//	mandelscope probe ...            print escape counts of pixels
//	mandelscope bench ...            benchmark the window's preview renderer
//	mandelscope version              print the version
//
// main.go is the dispatch and the version subcommand; every other subcommand lives in its own
// cmd_*.go file, and flags.go holds the location flags they share.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	// First: keeps Fyne from logging locale errors under LANG=C (see the package comment).
	_ "mandelscope/internal/clocale"
	"mandelscope/internal/version"
)

func init() {
	// GLFW (for the window and for the offscreen GL context) must run on the main thread.
	runtime.LockOSThread()
}

// exitError carries an exit code other than 1 (130 for an interrupt, 2 for bad usage).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// usageErr marks a mistake in the command line (exit code 2).
func usageErr(format string, a ...any) error {
	return exitError{2, fmt.Errorf(format, a...)}
}

var commands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"export":    runExport,
	"bookmarks": runBookmarks,
	"gradients": runGradients,
	"probe":     runProbe,
	"bench":     runBench,
	"version": func(_ []string, stdout, _ io.Writer) error {
		_, err := fmt.Fprintf(stdout, "mandelscope %s\n", version.Version)
		return err
	},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line and turns its error into one line on stderr and an exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args) > 0 && len(args[0]) > 0 && args[0][0] == '-' && args[0] != "-h" && args[0] != "--help") {
		return exitCode(runWindow(args), "mandelscope: ", stderr)
	}
	name := args[0]
	cmd, ok := commands[name]
	if !ok {
		if name != "-h" && name != "--help" && name != "help" {
			fmt.Fprintf(stderr, "mandelscope: unknown command %q (commands: export, bookmarks, gradients, probe, bench, version)\n", name)
			return 2
		}
		fmt.Fprintln(stdout, "usage: mandelscope [export|bookmarks|gradients|probe|bench|version] [flags]  (no command opens the window)")
		return 0
	}
	return exitCode(cmd(args[1:], stdout, stderr), "mandelscope "+name+": ", stderr)
}

// exitCode prints err as one line after prefix and returns the process exit code: 0 for no
// error (or -h), the code an exitError carries, else 1.
func exitCode(err error, prefix string, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s%v\n", prefix, err)
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
