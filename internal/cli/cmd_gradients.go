package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"mandelscope/colour"
	"mandelscope/gradients"
	"mandelscope/internal/text"
)

const gradientsUsage = "list, import or export"

// runGradients manages the user's gradients (gradients.Dir: $MANDELSCOPE_GRADIENTS or the
// user config folder's mandelscope/gradients):
//
//	mandelscope gradients list
//	mandelscope gradients import [--force] FILE [NAME]   (a gradient file, Kalles Fraktaler .kfr/.kfp,
//	                                                      Fractint .map or Ultra Fractal .ugr)
//	mandelscope gradients export [--force] NAME FILE     (a built-in palette or a user gradient)
//
// Neither import nor export replaces a file unless --force is given.
func runGradients(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return UsageErr("missing subcommand: %s", gradientsUsage)
	}
	sub, args := args[0], args[1:]
	if isHelp(sub) {
		return writeGroupHelp(stdout, "gradients")
	}
	run, ok := map[string]func([]string, io.Writer, io.Writer) error{
		"list":   gradientsList,
		"ls":     gradientsList,
		"import": gradientsImport,
		"export": gradientsExport,
	}[sub]
	if !ok {
		return UsageErr("unknown subcommand %q (use %s)", text.Clip(sub, 40), gradientsUsage)
	}
	return run(args, stdout, stderr)
}

// gradientsList prints the built-in palettes and the user's gradients, one a line: the name,
// where it comes from, and its stops (or why its file cannot be read).
func gradientsList(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("gradients list", stderr)
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos); err != nil {
		return err
	}
	dir, err := gradients.Dir()
	if err != nil {
		return err
	}
	for _, n := range colour.PaletteNames() {
		g, _ := colour.BuiltinGradient(n)
		fmt.Fprintf(stdout, "%s\tbuilt in\t%s\n", n, g.Text())
	}
	list, err := gradients.List(dir)
	if err != nil {
		return err
	}
	for _, e := range list {
		if e.Err != nil {
			fmt.Fprintf(stdout, "%s\tunreadable\t%v\n", e.Name, e.Err)
			continue
		}
		fmt.Fprintf(stdout, "%s\t%d stops\t%s\n", e.Name, len(e.Gradient.Stops), e.Gradient.Text())
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "no gradients of your own in %s\n", dir)
	}
	return nil
}

// gradientsImport imports the gradients of a palette file (gradients.ReadImport: a gradient
// file, a Kalles Fraktaler .kfr/.kfp, a Fractint .map, every gradient of an Ultra Fractal
// .ugr) into the gradients folder, each under its own name (NAME, for a file of one
// gradient, instead), and says so a line each. None is written when one of them is there
// already, unless --force.
func gradientsImport(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("gradients import", stderr)
	force := fs.Bool("force", false, "replace a gradient of the same name")
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return UsageErr("missing gradient FILE")
	}
	if len(pos) > 2 {
		return wantArgs(pos, "gradient FILE", "NAME")
	}
	if len(pos) == 2 {
		if err := gradients.CheckName(pos[1]); err != nil {
			return UsageErr("%v", err)
		}
	}
	list, err := gradients.ReadImport(pos[0])
	if err != nil {
		return err
	}
	if len(pos) == 2 {
		if len(list) > 1 {
			return UsageErr("%s holds %d gradients: leave NAME out and each is kept under its own name", pos[0], len(list))
		}
		list[0].Name, list[0].Note = pos[1], ""
	}
	dir, err := gradients.Dir()
	if err != nil {
		return err
	}
	if err := gradients.SaveAll(dir, list, *force); err != nil {
		return forceAdvice(err)
	}
	for _, it := range list {
		note := ""
		if it.Note != "" {
			note = " (named so: " + it.Note + ")"
		}
		fmt.Fprintf(stdout, "imported %s (%d stops) into %s: use --palette=%s%s\n", it.Name, len(it.Gradient.Stops), dir, it.Name, note)
	}
	return nil
}

func gradientsExport(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("gradients export", stderr)
	force := fs.Bool("force", false, "replace an existing FILE")
	pos, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, "gradient NAME", "FILE"); err != nil {
		return err
	}
	name, path := pos[0], pos[1]
	g, err := colour.BuiltinGradient(name)
	if err != nil {
		dir, derr := gradients.Dir()
		if derr != nil {
			return derr
		}
		if g, err = gradients.Load(dir, name); errors.Is(err, gradients.ErrNotFound) || colour.ValidGradientName(name) != nil {
			return UsageErr("unknown gradient %q (built in: %s; yours: mandelscope gradients list)", text.Clip(name, 40), strings.Join(colour.PaletteNames(), ", "))
		} else if err != nil {
			return err
		}
	}
	if err := gradients.WriteFile(path, g.File(name), *force); err != nil {
		return forceAdvice(err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d stops) to %s\n", name, len(g.Stops), path)
	return nil
}

// forceAdvice adds to a refusal to replace a file (gradients.ErrExists) the flag that does.
func forceAdvice(err error) error {
	if errors.Is(err, gradients.ErrExists) {
		var ee *gradients.ExistsError
		if errors.As(err, &ee) && len(ee.Names) > 1 {
			return fmt.Errorf("%w (use --force to replace them; nothing was imported)", err)
		}
		return fmt.Errorf("%w (use --force to replace it)", err)
	}
	return err
}
