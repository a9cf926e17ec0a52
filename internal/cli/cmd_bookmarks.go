package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"strconv"
	"strings"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/render/cpu"
)

// Thumbnail size of bookmarks made on the command line.
const thumbW, thumbH = 96, 54

// thumbMaxIterations caps the iterations a thumbnail is rendered with, so that adding a
// bookmark with a huge iteration count stays quick.
const thumbMaxIterations = 20000

const bookmarksUsage = "list, add, rm, rename, import or export"

// runBookmarks manages the bookmarks file (bookmarks.DefaultPath, or $MANDELSCOPE_BOOKMARKS):
//
//	mandelscope bookmarks list
//	mandelscope bookmarks add --center=RE,IM --zoom=Z [--iterations=N] [--palette=NAME] NAME
//	mandelscope bookmarks add --julia=RE,IM [--center=RE,IM --zoom=Z] [flags] NAME
//	mandelscope bookmarks add --formula=burning-ship [--power=D] --center=RE,IM --zoom=Z [flags] NAME
//	mandelscope bookmarks rm NAME
//	mandelscope bookmarks rename OLD NEW
//	mandelscope bookmarks import FILE...        (a bookmarks JSON file or a Kalles Fraktaler .kfr)
//	mandelscope bookmarks export [--force] [--name=NAME]... FILE
func runBookmarks(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return UsageErr("missing subcommand: %s", bookmarksUsage)
	}
	sub, args := args[0], args[1:]
	if isHelp(sub) {
		return writeGroupHelp(stdout, "bookmarks")
	}
	run, ok := map[string]func([]string, io.Writer, io.Writer) error{
		"list":   bookmarksList,
		"ls":     bookmarksList,
		"add":    bookmarksAdd,
		"rm":     bookmarksRemove,
		"remove": bookmarksRemove,
		"rename": bookmarksRename,
		"mv":     bookmarksRename,
		"import": bookmarksImport,
		"export": bookmarksExport,
	}[sub]
	if !ok {
		return UsageErr("unknown subcommand %q (use %s)", text.Clip(sub, 40), bookmarksUsage)
	}
	return run(args, stdout, stderr)
}

// wantArgs checks the number of positional arguments, naming what is missing or extra.
func wantArgs(pos []string, names ...string) error {
	if len(pos) < len(names) {
		return UsageErr("missing %s", strings.Join(names[len(pos):], " and "))
	}
	if len(pos) > len(names) {
		return UsageErr("unexpected argument %q (quote a name that has spaces)", text.Clip(pos[len(names)], 40))
	}
	return nil
}

func bookmarksPath() (string, error) { return bookmarks.DefaultPath() }

func bookmarksList(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bookmarks list", stderr)
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos); err != nil {
		return err
	}
	path, err := bookmarksPath()
	if err != nil {
		return err
	}
	s, err := bookmarks.Load(path)
	if err != nil {
		return err
	}
	if s.Len() == 0 {
		fmt.Fprintf(stderr, "no bookmarks in %s\n", path)
		return nil
	}
	for _, b := range s.List() {
		if _, err := fmt.Fprintf(stdout, "%s\t%s\n", termText(b.Name), listLine(b.Location)); err != nil {
			return err
		}
	}
	return nil
}

// termText is a name as it is safe to print on a terminal: as it is when every character is
// printable, else quoted with escapes (strconv.Quote), so that a name holding U+202E (which
// reverses the rest of the line) or another format character cannot rearrange or hide what
// the terminal shows. A name that starts with a quote is quoted too, to stay unambiguous.
func termText(s string) string {
	if strings.HasPrefix(s, `"`) || strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// listLine is a location as the flags that lead back to it: the view (with --formula and
// --power for a formula other than the Mandelbrot set's, --julia for a Julia set's) and all
// of its colouring (density, offset, colouring, transfer, and the interior colouring, line width
// and light where they are set), so that an export with them draws the bookmark's picture.
func listLine(l fractal.Location) string {
	c := l.Color
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	method, transfer := c.Method, c.Transfer
	if method == "" {
		method = colour.MethodSmooth
	}
	if transfer == "" {
		transfer = colour.TransferLinear
	}
	julia := ""
	if l.Formula.Kind != fractal.Mandelbrot {
		julia = "--formula=" + l.Formula.Kind.String() + " "
	}
	if d := l.Formula.Power(); d != 2 {
		julia += "--power=" + strconv.Itoa(d) + " "
	}
	if l.IsJulia() {
		julia += "--julia=" + l.Julia.String() + " "
	}
	s := fmt.Sprintf("%s--center=%s,%s --zoom=%s --iterations=%d --palette=%s --density=%s --offset=%s --colouring=%s --transfer=%s",
		julia, l.Re, l.Im, l.Zoom, l.Iterations, c.Palette, c.DensityText(), f(c.Offset), method, transfer)
	if l.Rotation != 0 {
		s += " --rotation=" + f(l.Rotation)
	}
	if c.NeedsInterior() {
		s += " --interior=" + c.Interior
	}
	if c.Width != 0 {
		s += " --line-width=" + f(c.Width)
	}
	if c.Light != 0 {
		s += " --light=" + f(c.Light)
	}
	if c.Strength != 0 {
		s += " --light-strength=" + f(c.Strength)
	}
	return s
}

func bookmarksAdd(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bookmarks add", stderr)
	lf := AddLocationFlags(fs)
	thumb := fs.Bool("thumbnail", true, fmt.Sprintf("store a %dx%d thumbnail rendered on the CPU", thumbW, thumbH))
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, "bookmark NAME"); err != nil {
		return err
	}
	// A Julia set's view may be the set whole (--julia alone: centre 0, zoom 1).
	for _, f := range []string{"center", "zoom"} {
		if !flagWasSet(fs, f) && !flagWasSet(fs, "julia") {
			return UsageErr("missing --%s (add --center=RE,IM --zoom=Z NAME, or --julia=RE,IM NAME)", f)
		}
	}
	loc, err := lf.Apply(fractal.Home(), true)
	if err != nil {
		return err
	}
	name, err := bookmarks.CleanName(pos[0])
	if err != nil {
		return UsageErr("%v", err)
	}
	path, err := bookmarksPath()
	if err != nil {
		return err
	}
	// Check before the render that the file is readable and the name free.
	s, err := bookmarks.Load(path)
	if err != nil {
		return err
	}
	if _, ok := s.Get(name); ok {
		return fmt.Errorf("bookmark %q already exists", name)
	}
	b := bookmarks.Bookmark{Name: name, Location: loc}
	if *thumb {
		if b.Thumbnail, err = renderThumbnail(loc); err != nil {
			return fmt.Errorf("thumbnail: %v", err)
		}
	}
	if err := bookmarks.Add(path, b); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "added %q to %s\n", name, path)
	return err
}

// renderThumbnail renders l at thumbW x thumbH on the CPU and encodes it as PNG.
func renderThumbnail(l fractal.Location) ([]byte, error) {
	l.Iterations = min(l.Iterations, thumbMaxIterations)
	img := image.NewRGBA(image.Rect(0, 0, thumbW, thumbH))
	var r cpu.Renderer
	if err := r.Render(context.Background(), fractal.NewFrame(l, thumbW, thumbH), img.Bounds(), img); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func bookmarksRemove(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bookmarks rm", stderr)
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, "bookmark NAME"); err != nil {
		return err
	}
	path, err := bookmarksPath()
	if err != nil {
		return err
	}
	b, err := bookmarks.Remove(path, pos[0])
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "removed %q (%s); the previous file is kept as %s.bak\n", b.Name, listLine(b.Location), path)
	return err
}

func bookmarksRename(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bookmarks rename", stderr)
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, "OLD name", "NEW name"); err != nil {
		return err
	}
	newName, err := bookmarks.CleanName(pos[1])
	if err != nil {
		return UsageErr("%v", err)
	}
	path, err := bookmarksPath()
	if err != nil {
		return err
	}
	if err := bookmarks.Rename(path, pos[0], newName); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "renamed %q to %q\n", strings.TrimSpace(pos[0]), newName)
	return err
}

func bookmarksImport(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bookmarks import", stderr)
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return UsageErr("missing FILE to import (a bookmarks .json or a Kalles Fraktaler .kfr)")
	}
	path, err := bookmarksPath()
	if err != nil {
		return err
	}
	// Read every source first, so that one bad file imports nothing.
	all := &bookmarks.Store{}
	for _, src := range pos {
		in, err := bookmarks.ReadImport(src)
		if err != nil {
			return err
		}
		all.Merge(in)
	}
	var added []string
	var skipped int
	err = bookmarks.Update(path, func(s *bookmarks.Store) error {
		added, skipped = s.Merge(all)
		return nil
	})
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("imported %d bookmark(s) into %s", len(added), path)
	if len(added) > 0 {
		msg += ": " + quoteList(added)
	}
	if skipped > 0 {
		msg += fmt.Sprintf(" (%d already there)", skipped)
	}
	_, err = fmt.Fprintln(stdout, msg)
	return err
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// nameList is a repeatable string flag.
type nameList []string

func (n *nameList) String() string     { return strings.Join(*n, ",") }
func (n *nameList) Set(s string) error { *n = append(*n, s); return nil }

func bookmarksExport(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bookmarks export", stderr)
	force := fs.Bool("force", false, "replace FILE if it exists")
	var names nameList
	fs.Var(&names, "name", "export only this bookmark (repeat for more; default all)")
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, "FILE to export to"); err != nil {
		return err
	}
	path, err := bookmarksPath()
	if err != nil {
		return err
	}
	n, err := bookmarks.Export(path, pos[0], names, *force)
	if err != nil {
		if !*force && strings.Contains(err.Error(), "already exists") {
			return errors.New(err.Error() + " (use --force to replace it)")
		}
		return err
	}
	_, err = fmt.Fprintf(stdout, "exported %d bookmark(s) to %s\n", n, pos[0])
	return err
}
