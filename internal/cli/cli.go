// Package cli is mandelscope's command line, the window aside: the subcommands export,
// assemble, recolour, video, bookmarks, gradients, probe, bench and version, the location flags they share with the
// window, and one table (commands) from which both the dispatch and the list of commands in
// the usage and error messages are made; help.go holds what every command's --help says (its
// usage lines, what it does and prints) and the flags a command refuses, which its help leaves
// out. It does not import Fyne: the window (cmd_window.go)
// and main.go stay in the root package, which calls Run for every command line that names a
// command.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"mandelscope/internal/text"
	"mandelscope/internal/version"
)

// ExitError carries an exit code other than 1 (130 for an interrupt, 2 for bad usage).
type ExitError struct {
	Code int
	Err  error
}

func (e ExitError) Error() string { return e.Err.Error() }
func (e ExitError) Unwrap() error { return e.Err }

// UsageErr marks a mistake in the command line (exit code 2).
func UsageErr(format string, a ...any) error {
	return ExitError{2, fmt.Errorf(format, a...)}
}

// command is one subcommand: its name and what runs it with the arguments after the name.
type command struct {
	name string
	run  func(args []string, stdout, stderr io.Writer) error
}

// commands is the one list of subcommands, in the order the usage names them; Run dispatches
// through it and builds its messages from it.
var commands = []command{
	{"export", runExport},
	{"assemble", runAssemble},
	{"recolour", runRecolour},
	{"video", runVideo},
	{"bookmarks", runBookmarks},
	{"gradients", runGradients},
	{"probe", runProbe},
	{"find", runFind},
	{"bench", runBench},
	{"version", runVersion},
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	rest, err := ParseFlags(NewFlagSet("version", stderr), args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return UsageErr("unexpected argument %q", text.Clip(rest[0], 40))
	}
	_, err = fmt.Fprintf(stdout, "mandelscope %s\n", version.Version)
	return err
}

// names returns the commands' names joined by sep.
func names(sep string) string {
	ns := make([]string, len(commands))
	for i, c := range commands {
		ns[i] = c.name
	}
	return strings.Join(ns, sep)
}

// Run dispatches a command line that starts with a command name (or help, -h, --help) and
// turns its error into one line on stderr and an exit code. A command's -h or --help prints
// its help on stdout (exit 0), as does `mandelscope help COMMAND`; `mandelscope --help` lists
// the commands and the window's flags.
func Run(args []string, stdout, stderr io.Writer) int {
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	if name == "help" && len(args) > 1 { // help COMMAND [SUBCOMMAND]: that command's --help
		return Run(append(append([]string{}, args[1:]...), "--help"), stdout, stderr)
	}
	for _, c := range commands {
		if c.name == name {
			err := c.run(args[1:], stdout, stderr)
			if printHelp(err, stdout) {
				return 0
			}
			return ExitCode(err, "mandelscope "+name+": ", stderr)
		}
	}
	if !isHelp(name) {
		fmt.Fprintf(stderr, "mandelscope: unknown command %q (commands: %s)\n", text.Clip(name, 40), names(", "))
		return 2
	}
	if err := writeMainHelp(stdout); err != nil {
		return ExitCode(err, "mandelscope: ", stderr)
	}
	return 0
}

// WriteHelp prints the help of the flag set whose -h or --help gave err (see ParseFlags) on
// w and reports whether err was that; the window's flags print `mandelscope --help`.
func WriteHelp(err error, w io.Writer) bool { return printHelp(err, w) }

// ExitCode prints err as one line after prefix and returns the process exit code: 0 for no
// error (or -h), the code an ExitError carries, else 1.
func ExitCode(err error, prefix string, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s%v\n", prefix, err)
	var ee ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 1
}
