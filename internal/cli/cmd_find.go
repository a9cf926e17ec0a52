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
	"time"

	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// DefaultFindLimit is the highest period find looks for without --iterations: a search ends
// at the first minibrot accepted, so a high limit costs time only where there is none.
const DefaultFindLimit = 1_000_000

// FindMaxTime bounds one search.
const FindMaxTime = 60 * time.Second

// findMaxTime is the bound find applies: FindMaxTime, longer in tests where the race detector
// and the other packages' tests slow a search several times over.
var findMaxTime = FindMaxTime

// runFind prints one line for the minibrot nearest the view's centre (see helps["find"];
// fractal.FindMinibrotWith and FindMisiurewicz say how).
func runFind(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("find", stderr)
	lf := AddLocationFlags(fs)
	refuse(fs, "find prints a location without its colouring", colourFlags...)
	refuse(fs, "find looks for minibrots and Misiurewicz points of the Mandelbrot set, not of a Julia set", "julia")
	size := fs.String("size", "1280x720", "image size WxH the view and the pixel X,Y refer to")
	misi := fs.Bool("misiurewicz", false, "find the nearest Misiurewicz point instead of a minibrot (preperiod plus period at most 16384)")
	depth := fs.Float64("depth", 1, "stop this fraction of the way to the minibrot, in log zoom (0 < F < 1; 1: all the way)")
	pts, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if !flagWasSet(fs, "center") || !flagWasSet(fs, "zoom") {
		return UsageErr("give the view to search: --center=RE,IM and --zoom=Z")
	}
	if !(*depth > 0 && *depth <= 1) {
		return UsageErr("--depth=%g must be above 0 and at most 1", *depth)
	}
	if *misi && *depth != 1 {
		return UsageErr("--depth is for minibrots: a Misiurewicz point keeps the view's zoom")
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
	where := "the centre"
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
		where = fmt.Sprintf("pixel %d,%d", px, py)
	default:
		return UsageErr("give at most one pixel X,Y (got %d arguments)", len(pts))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	limit := DefaultFindLimit
	if flagWasSet(fs, "iterations") {
		limit = loc.Iterations
	}
	var f fractal.Found
	if *misi {
		f, err = fractal.FindMisiurewicz(ctx, loc, w, h, x, y, limit)
	} else {
		opt := fractal.FindOptions{Limit: limit, MaxTime: findMaxTime}
		if loc.ZoomExp().Log10() > 1000 {
			last := time.Now()
			opt.Progress = func(stage string, _ float64) {
				if time.Since(last) > time.Second {
					last = time.Now()
					fmt.Fprintf(stderr, "find: %s\n", stage)
				}
			}
		}
		f, err = fractal.FindMinibrotWith(ctx, loc, w, h, x, y, opt)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return ExitError{130, errors.New("interrupted")}
		}
		return errors.New(FindErrorText(err, where, limit, flagWasSet(fs, "iterations")))
	}
	if *depth < 1 {
		if f.Loc, err = f.AtDepth(loc, *depth); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(stdout, f.Text())
	return err
}

// FindErrorText is a search's error in plain words for a person, the point named by where
// ("the centre", "the pointer"); limit is the period limit, and limitSet says whether the
// person chose it (only then is raising it advice that can help).
func FindErrorText(err error, where string, limit int, limitSet bool) string {
	var nm *fractal.NoMinibrotError
	switch {
	case errors.As(err, &nm):
		return fmt.Sprintf("no minibrot near %s in this view (%s): zoom out a little or move to the set's edge", where, nm.Why)
	case errors.Is(err, fractal.ErrPeriodLimit) && limitSet:
		return fmt.Sprintf("no minibrot near %s with a period up to %d (raise --iterations)", where, limit)
	case errors.Is(err, fractal.ErrPeriodLimit):
		return fmt.Sprintf("no minibrot near %s with a period up to %d: zoom out a little or move to the set's edge", where, limit)
	case errors.Is(err, fractal.ErrSearchTimeout):
		return fmt.Sprintf("no minibrot near %s found in %v: zoom out a little or move to the set's edge", where, findMaxTime)
	case errors.Is(err, fractal.ErrNoMisiurewicz) && limitSet:
		return fmt.Sprintf("no Misiurewicz point found inside this view near %s with preperiod plus period up to %d (raise --iterations, up to 16384)", where, min(limit, fractal.MaxMisiurewiczIter))
	case errors.Is(err, fractal.ErrNoMisiurewicz):
		return fmt.Sprintf("no Misiurewicz point found inside this view near %s: zoom out a little or move to the set's edge", where)
	}
	return err.Error()
}
