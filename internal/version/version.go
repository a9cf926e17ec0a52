// Package version holds the program's version, the one source of it: `mandelscope version`
// prints it, exports write it into their PNG metadata (from the command line and from the
// window), and FyneApp.toml, which `fyne package` reads, must carry the same (a test checks).
package version

// Version is Mandelscope's version.
const Version = "0.1.0"
