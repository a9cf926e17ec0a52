// Command mandelscope is a Mandelbrot explorer: with no arguments it opens the window; its
// subcommands export images, manage bookmarks, probe escape counts and benchmark the preview.
//
//	mandelscope                      open the explorer window
//	mandelscope export ...           render a view to a PNG of up to 32K (and its raw data: --raw)
//	mandelscope recolour ...         colour an export's raw data into a PNG, computing nothing
//	mandelscope bookmarks ...        list, add, remove, rename, import and export bookmarks
//	mandelscope gradients ...        list, import and export gradients of your own
//	mandelscope probe ...            print escape counts of pixels
//	mandelscope bench ...            benchmark the window's preview renderer
//	mandelscope version              print the version
//
// main.go sends a command line to the window (cmd_window.go, the one part that imports Fyne)
// or to package internal/cli, which holds every subcommand, their dispatch table and the
// location flags they share with the window.
package main

import (
	"io"
	"os"
	"runtime"

	// First: keeps Fyne from logging locale errors under LANG=C (see the package comment).
	_ "mandelscope/internal/clocale"

	"mandelscope/internal/cli"
)

func init() {
	// GLFW (for the window and for the offscreen GL context) must run on the main thread.
	runtime.LockOSThread()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run opens the window for a command line with no command (none, or flags first: -h and
// --help aside) and hands any other to cli.Run.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && args[0] != "-h" && args[0] != "--help") {
		return cli.ExitCode(runWindow(args), "mandelscope: ", stderr)
	}
	return cli.Run(args, stdout, stderr)
}
