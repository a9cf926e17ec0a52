package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// help is what a command's --help says besides its flags: its usage lines (after
// "mandelscope "), its line in `mandelscope --help` (short), what it does, and what it prints
// where. A command with subcommands (bookmarks, gradients) has short and about only, and
// lists its subcommands' usage.
type help struct {
	usage  []string
	short  string
	about  string
	prints string
}

// helps holds the help of every flag set by its command path: "" for the window, "export",
// "bookmarks add", ...; NewFlagSet's name is that path. Every command of the commands table
// has one, with its short line for `mandelscope --help`.
var helps = map[string]help{
	"": {
		usage:  []string{"[flags]"},
		about:  "Opens the explorer window: at the view the location flags give (--julia=RE,IM: the Julia set of that c), else where the last session left it (the view, its colouring, the window's size and the bookmarks panel). In the window, Help > Keys (F1) lists the keys and mouse inputs.",
		prints: "on stderr, which renderer the window draws with; with MANDELSCOPE_TRACE_FRAMES=1 in the environment, a line for every frame shown.",
	},
	"export": {
		short: "render a view to a PNG of up to 65536x65536 (and its raw data: --raw)",
		usage: []string{
			"export [flags] -o FILE.png",
			"export --from=FILE.png|FILE.exr [flags] -o FILE.png",
			"export [flags] --raw=FILE.exr [-o FILE.png]",
			"export [flags] --shard=I/N -o FILE.png     (then: mandelscope assemble FILE.png)",
			"export [flags] --reference-out=FILE",
		},
		about:  "Renders a view to a PNG of up to 65536 pixels a side, in strips and in bounded memory. The view is the location flags', a bookmark's (--bookmark) or a Mandelscope image's (--from); --julia=RE,IM makes it the Julia set of that c, and the PNG and raw file record c with every digit. --raw also keeps every computed sample in an OpenEXR file, which recolour colours again computing nothing. An interrupted export goes on with --resume and gives the same bytes; an existing file is replaced only with --force.",
		prints: "on stderr: what it renders and with which renderer, its progress (a bar on a terminal, else a line a step), then a summary: the files written, their size, the time and speed, and an automatic density's value. Nothing on stdout.",
	},
	"assemble": {
		short: "join an export's shards into its PNG, or a video's into the video",
		usage: []string{
			"assemble [--shards=N] [--force] [--remove-shards] FILE.png",
			"assemble [--force] [--keep-keyframes] OUT.mp4",
		},
		about:  "Joins an export's shards into its PNG, or makes a video from its shards' keyframes. The shards are those that `export ... --shard=I/N -o FILE.png` wrote beside FILE.png (the PNG is byte for byte the one a single export writes), or the keyframes that `video ... --shard=I/N -o OUT.mp4` computed into OUT.mp4.work. Every shard is checked first; a missing or damaged one is named and nothing is written.",
		prints: "on stderr: a summary line (the file written, its size, the shards or keyframes it came from, the time); for a video, the frames composed as it goes.",
	},
	"recolour": {
		short:  "colour an export's raw data (.exr) into a PNG, computing nothing",
		usage:  []string{"recolour IN.exr [flags] -o OUT.png"},
		about:  "Colours an export's raw data into a PNG, computing nothing. IN.exr is a raw file written by `export --raw=IN.exr`; the view (centre, zoom, iterations, a Julia set's parameter) is the file's, the colouring is the file's with the flags applied, and the PNG is the one an export with those flags gives. An interrupted recolour goes on with --resume.",
		prints: "on stderr: what it colours, its progress, then a summary as export's (the file, its size, the time). Nothing on stdout.",
	},
	"video": {
		short: "make a zoom video to a view (keyframes, composed, encoded by ffmpeg)",
		usage: []string{
			"video [flags] -o OUT.mp4",
			"video [flags] --frames=DIR",
			"video [flags] --shard=I/N -o OUT.mp4     (then: mandelscope assemble OUT.mp4)",
			"video --keyframes-only --exr [flags] -o DIR     (the keyframes as OpenEXR files, no video)",
		},
		about:  "Makes a zoom video from --start-zoom (1, the whole set, by default) to a view, or along --waypoints=T:ZOOM,... (zooms at times, with holds), with a soundtrack from --audio=FILE. The view is the location flags', a bookmark's (--bookmark) or a Mandelscope image's (--from), a Julia set's with --julia=RE,IM. One keyframe is computed per doubling of the zoom and every frame is composed from them; ffmpeg encodes the frames (--frames writes PNG frames, without ffmpeg). After Ctrl-C, --resume goes on from the keyframes kept in OUT.mp4.work. --keyframes-only --exr writes the keyframes instead, as OpenEXR files in Kalles Fraktaler's zoom-out layout (DIR/00001_ZOOM.exr the view, each next one zoomed out 2x; channels N, NF, DEX, DEY).",
		prints: "on stderr: the plan (size, frame rate, length, zoom range, renderer), the progress (keyframes, then frames), then a summary: the file, its size, the keyframes computed and reused, the time of each stage, and an automatic density's value. Nothing on stdout.",
	},
	"bookmarks": {
		short: "list, add, rm, rename, import and export bookmarks",
		about: "Manages the bookmarks file: $MANDELSCOPE_BOOKMARKS, or bookmarks.json in the user config folder (the window's). Every change keeps the previous file as FILE.bak.",
	},
	"bookmarks list": {
		usage:  []string{"bookmarks list"},
		about:  "Lists the bookmarks. The bookmarks file is $MANDELSCOPE_BOOKMARKS, or bookmarks.json in the user config folder (the window's).",
		prints: "on stdout, a line a bookmark: its name (quoted with escapes when it holds unprintable characters), a tab, and the flags that lead back to it (its view, with --julia=RE,IM for a Julia set's, and its colouring); on stderr, a line when there are none.",
	},
	"bookmarks add": {
		usage:  []string{"bookmarks add --center=RE,IM --zoom=Z [flags] NAME", "bookmarks add --julia=RE,IM [--center=RE,IM --zoom=Z] [flags] NAME"},
		about:  "Adds a bookmark of the view the location flags give (a Julia set's with --julia=RE,IM), with its colouring and a thumbnail rendered on the CPU. A name already taken is refused.",
		prints: "on stdout: added \"NAME\" to FILE.",
	},
	"bookmarks rm": {
		usage:  []string{"bookmarks rm NAME     (or remove)"},
		about:  "Removes a bookmark. The previous file is kept as FILE.bak.",
		prints: "on stdout: the bookmark removed, with its location, and where the previous file is kept.",
	},
	"bookmarks rename": {
		usage:  []string{"bookmarks rename OLD NEW     (or mv)"},
		about:  "Renames a bookmark.",
		prints: "on stdout: renamed \"OLD\" to \"NEW\".",
	},
	"bookmarks import": {
		usage:  []string{"bookmarks import FILE..."},
		about:  "Imports bookmarks from Mandelscope bookmarks files (.json) and Kalles Fraktaler locations (.kfr: Re, Im, Zoom, Iterations). Every file is read first, so that one bad file imports nothing; a bookmark already there is kept.",
		prints: "on stdout: how many bookmarks were imported, their names, and how many were there already.",
	},
	"bookmarks export": {
		usage:  []string{"bookmarks export [--force] [--name=NAME]... FILE"},
		about:  "Writes the bookmarks (or those named) to a bookmarks file FILE, which bookmarks import reads.",
		prints: "on stdout: exported N bookmark(s) to FILE.",
	},
	"gradients": {
		short: "list, import and export gradients of your own",
		about: "Manages your gradients: one file each in $MANDELSCOPE_GRADIENTS, or the gradients folder in the user config folder. A gradient file has one colour stop a line, [POSITION] #RRGGBB; \"# \" starts a comment. Neither import nor export replaces a file without --force.",
	},
	"gradients list": {
		usage:  []string{"gradients list"},
		about:  "Lists the built-in palettes and your gradients. Your gradients are in $MANDELSCOPE_GRADIENTS, or the gradients folder in the user config folder.",
		prints: "on stdout, a line each: the name, a tab, \"built in\" or its number of stops (or \"unreadable\"), a tab, and its stops (or why its file cannot be read); on stderr, a line when you have none.",
	},
	"gradients import": {
		usage:  []string{"gradients import [--force] FILE [NAME]"},
		about:  "Copies the gradients of a palette file into your gradients, for --palette=NAME and the window: a gradient file (one stop a line: [POSITION] #RRGGBB; \"# \" starts a comment), a Kalles Fraktaler .kfr or .kfp (its Colors), a Fractint .map (R G B a line, at most 256) or every gradient of an Ultra Fractal .ugr. The file's name names it (NAME instead, for a file of one gradient); a .ugr's gradients keep their own names. A built-in palette's name gets -imported, a name twice in a file a number. If one of the names is taken, nothing is imported unless --force.",
		prints: "on stdout, a line a gradient: imported NAME (N stops) into FOLDER: use --palette=NAME, and why it is named so when the file named it otherwise.",
	},
	"gradients export": {
		usage:  []string{"gradients export [--force] NAME FILE"},
		about:  "Writes a built-in palette or one of your gradients as a gradient file, a starting point to edit.",
		prints: "on stdout: wrote NAME (N stops) to FILE.",
	},
	"probe": {
		short:  "print the escape counts of pixels of a view",
		usage:  []string{"probe [flags] X,Y ..."},
		about:  "Computes the escape count of pixels of a view at --size, as the image would (float32, float64, or perturbation past float64's reach); --exact computes it in math/big instead. With --julia=RE,IM the view is the Julia set of that c: the pixel's point is the orbit's first point z1, iterated z <- z^2 + c (in math/big too with --exact). A pixel may lie outside the image (-1,5 is just left of it).",
		prints: "on stdout, a line a pixel: X Y N, where N is the escape count, -1 when the point does not escape within the iterations.",
	},
	"find": {
		short:  "print the location of the minibrot or Misiurewicz point nearest a view's centre",
		usage:  []string{"find --center=RE,IM --zoom=Z [flags] [X,Y]"},
		about:  "Searches outward from the view's centre (or pixel X,Y of the view at --size) for the nearest minibrot (an island: a small copy of the set, not a bulb on a bigger one) that lies inside the view and is deeper than it. With --misiurewicz it finds the Misiurewicz point inside the view nearest that point, at the same zoom (preperiod plus period at most 16384), or says there is none inside the view. With --depth=F it stops F of the way (in log zoom) from the view to the minibrot. --iterations sets the highest period it looks for (default 1000000). Ctrl+C stops the search (exit 130), and a search stops after 60 s. This is the window's M key (D: halfway). It searches every formula (--formula, --power): the Mandelbrot set and its powers by Newton's method on z^D + c, the Burning Ship and the Mandelbar with the fold's 2x2 Jacobian (a search that cannot confirm a minibrot says so, never a wrong one); the Misiurewicz search is the Mandelbrot set's and its powers' (the Burning Ship and the Mandelbar are refused in a sentence saying they have no Misiurewicz finder yet), and --julia is refused.",
		prints: "on stdout, one line: the location that frames what it found (re=... im=... zoom=... iterations=..., as --location and Go to Location read it) and period=P (a Misiurewicz point: preperiod=Q period=P); when there is none, one line on stderr saying why (exit 1); progress on stderr for views deeper than 1e1000.",
	},
	"bench": {
		short:  "benchmark the window's preview renderer",
		usage:  []string{"bench [flags]"},
		about:  "Benchmarks the window's preview renderer: drives it through a scripted path of pans and zooms from the whole set to zoom 1e10. With --julia=RE,IM the path runs through the Julia set of c = RE+IM i, from the whole set towards a point of it.",
		prints: "on stdout: a header, a line for each step of the path (-v: for every frame), the interactive and full-resolution frames' figures, then one JSON line of them.",
	},
	"version": {
		short:  "print the version",
		usage:  []string{"version"},
		about:  "Prints the version.",
		prints: "on stdout: mandelscope VERSION.",
	},
}

// refusedFlags holds, for a flag set, the flags it defines but refuses, with the reason
// (see refuse).
var refusedFlags sync.Map // *flag.FlagSet -> map[string]string

// refuse makes ParseFlags refuse the named flags of fs with reason ("--center: " + reason)
// and leaves them out of the help: flags shared with other commands (the location flags)
// that this one does not take.
func refuse(fs *flag.FlagSet, reason string, names ...string) {
	m := map[string]string{}
	if v, ok := refusedFlags.Load(fs); ok {
		m = v.(map[string]string)
	}
	for _, n := range names {
		m[n] = reason
	}
	refusedFlags.Store(fs, m)
}

// refusal is the reason fs refuses the flag name, or "".
func refusal(fs *flag.FlagSet, name string) string {
	if v, ok := refusedFlags.Load(fs); ok {
		return v.(map[string]string)[name]
	}
	return ""
}

// helpError is what ParseFlags returns for -h or --help: flag.ErrHelp, with the flag set
// whose help Run prints on stdout.
type helpError struct{ fs *flag.FlagSet }

func (helpError) Error() string             { return flag.ErrHelp.Error() }
func (helpError) Is(target error) bool      { return target == flag.ErrHelp }
func (e helpError) write(w io.Writer) error { return writeHelp(w, e.fs) }

// writeHelp prints a flag set's help: its usage lines, what it does and prints, and its
// flags (those it refuses left out).
func writeHelp(w io.Writer, fs *flag.FlagSet) error {
	path := strings.TrimPrefix(strings.TrimPrefix(fs.Name(), "mandelscope"), " ")
	if path == "" {
		return writeMainHelp(w)
	}
	h := helps[path]
	var b strings.Builder
	for i, u := range h.usage {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(&b, "%smandelscope %s\n", lead, u)
	}
	if len(h.usage) == 0 {
		fmt.Fprintf(&b, "usage: mandelscope %s [flags]\n", path)
	}
	b.WriteString("\n" + wrap(h.about, 100) + "\n\n" + wrap("Prints "+h.prints, 100) + "\n")
	b.WriteString(flagsText(fs))
	_, err := io.WriteString(w, b.String())
	return err
}

// flagsText is "\nFlags:\n" and fs's flags as flag.PrintDefaults writes them, less those fs
// refuses; "" when it takes none.
func flagsText(fs *flag.FlagSet) string {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if refusal(fs, f.Name) == "" {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	var b strings.Builder
	n := 0
	shown.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return ""
	}
	b.WriteString("\nFlags:\n")
	shown.SetOutput(&b)
	shown.PrintDefaults()
	return b.String()
}

// writeMainHelp prints `mandelscope --help`: the usage, every command in a line, and the
// window's flags.
func writeMainHelp(w io.Writer) error {
	var b strings.Builder
	b.WriteString("usage: mandelscope [flags]                  open the explorer window\n" +
		"       mandelscope COMMAND [flags] ...      run a command (mandelscope COMMAND --help says more)\n\n" +
		wrap(helps[""].about, 100) + "\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, helps[c.name].short)
	}
	fs := NewFlagSet("", io.Discard)
	AddWindowFlags(fs)
	b.WriteString(strings.Replace(flagsText(fs), "\nFlags:", "\nThe window's flags:", 1))
	_, err := io.WriteString(w, b.String())
	return err
}

// subcommands lists the subcommands whose help helps holds for a command (bookmarks,
// gradients), sorted.
func subcommands(name string) []string {
	var subs []string
	for path := range helps {
		if sub, ok := strings.CutPrefix(path, name+" "); ok {
			subs = append(subs, sub)
		}
	}
	sort.Strings(subs)
	return subs
}

// writeGroupHelp prints the help of a command with subcommands: each one's usage lines and
// first sentence.
func writeGroupHelp(w io.Writer, name string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: mandelscope %s SUBCOMMAND ...   (mandelscope %s SUBCOMMAND --help says more)\n\n%s\n\nSubcommands:\n", name, name, wrap(helps[name].about, 100))
	for _, sub := range subcommands(name) {
		h := helps[name+" "+sub]
		for _, u := range h.usage {
			fmt.Fprintf(&b, "  mandelscope %s\n", u)
		}
		first, _, _ := strings.Cut(h.about, ". ")
		fmt.Fprintf(&b, "      %s\n", strings.TrimSuffix(first, "."))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// isHelp reports whether a command-line word asks for help.
func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

// printHelp prints the help err carries (a helpError from ParseFlags) on w, and reports
// whether it carried one.
func printHelp(err error, w io.Writer) bool {
	var he helpError
	if !errors.As(err, &he) {
		return false
	}
	_ = he.write(w)
	return true
}

// wrap breaks text into lines of at most width characters, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
