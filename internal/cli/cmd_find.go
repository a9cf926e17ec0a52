package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// DefaultFindLimit is the highest period find looks for without --iterations: a search ends
// at the first period found, so a high limit costs time only where there is none.
const DefaultFindLimit = 1_000_000

// runFind prints one line for the minibrot nearest the view's centre, or pixel X,Y of the
// view at --size: the location text that frames it (re= im= zoom= iterations=, as
// ParseLocationText reads it) and " period=P"; with --misiurewicz, the nearest Misiurewicz
// point at the same zoom and " preperiod=Q period=P". The search looks within half the
// view's shorter side, for periods up to --iterations (DefaultFindLimit without it), and
// suggests max(the view's iterations, 100 P) (fractal.FindMinibrot and FindMisiurewicz say
// how). An interrupt stops it (exit 130).
func runFind(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("find", stderr)
	lf := AddLocationFlags(fs)
	refuse(fs, "find prints a location without its colouring", colourFlags...)
	size := fs.String("size", "1280x720", "image size WxH the view and the pixel X,Y refer to")
	misi := fs.Bool("misiurewicz", false, "find the nearest Misiurewicz point instead of a minibrot")
	pts, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if !flagWasSet(fs, "center") || !flagWasSet(fs, "zoom") {
		return UsageErr("give the view to search: --center=RE,IM and --zoom=Z")
	}
	loc, err := lf.Apply(fractal.Home(), true)
	if err != nil {
		return err
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return UsageErr("--size: %v", err)
	}
	x, y := float64(w)/2, float64(h)/2
	switch len(pts) {
	case 0:
	case 1:
		xs, ys, ok := strings.Cut(pts[0], ",")
		px, err1 := strconv.Atoi(xs)
		py, err2 := strconv.Atoi(ys)
		if !ok || err1 != nil || err2 != nil {
			return UsageErr("pixel %q must be X,Y with whole numbers", text.Clip(pts[0], 40))
		}
		if px < 0 || py < 0 || px >= w || py >= h {
			return UsageErr("pixel %d,%d is outside the %dx%d image", px, py, w, h)
		}
		x, y = float64(px)+0.5, float64(py)+0.5
	default:
		return UsageErr("give at most one pixel X,Y (got %d arguments)", len(pts))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	find := fractal.FindMinibrot
	if *misi {
		find = fractal.FindMisiurewicz
	}
	limit := DefaultFindLimit
	if flagWasSet(fs, "iterations") {
		limit = loc.Iterations
	}
	f, err := find(ctx, loc, w, h, x, y, limit)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return ExitError{130, errors.New("interrupted")}
		}
		if errors.Is(err, fractal.ErrNoMinibrot) {
			return fmt.Errorf("%v (raise --iterations)", err)
		}
		return err
	}
	_, err = fmt.Fprintln(stdout, f.Text())
	return err
}
