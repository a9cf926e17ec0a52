package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// runProbe prints "X Y N" for each pixel X,Y given: N is its escape count by the rendering
// contract, -1 when it does not escape, computed as the image would (float32, float64, or
// perturbation with BLA past float64's reach); --exact computes it in math/big instead. A
// pixel may lie outside the image ("-1,5" is just left of it), where the image's pixel grid
// continues; such a coordinate after the flags is a pixel, not a flag (see ParseFlags). With
// --channels each line is "X Y N T STRIPE", the orbit channels (fractal's orbit.go) with 6
// decimals, by the picture's loops or, with --exact, in math/big.
func runProbe(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("probe", stderr)
	lf := AddLocationFlags(fs)
	refuse(fs, "probe prints escape counts, which no colouring changes", colourFlags...)
	size := fs.String("size", "1280x720", "image size WxH the pixel coordinates refer to")
	exact := fs.Bool("exact", false, "compute with math/big instead (the exact reference, slow)")
	channels := fs.Bool("channels", false, "print \"X Y N T STRIPE\": the orbit channels T = arg(z_N)/2pi and STRIPE too (6 decimals;\n0 for a pixel that does not escape)")
	pts, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	loc, err := lf.Apply(fractal.Home(), true)
	if err != nil {
		return err
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return UsageErr("--size: %v", err)
	}
	if lf.AutoIterations() {
		if loc.Iterations, err = autoCount(loc, w, h); err != nil {
			return err
		}
	}
	if len(pts) == 0 {
		return UsageErr("no pixels given: pass X,Y pairs after the flags")
	}
	if *channels && !loc.Formula.IsMandelbrot() {
		return UsageErr("--channels: the orbit channels are not yet available for formula %s", loc.Formula)
	}
	f := fractal.NewFrame(loc, w, h)
	f.Channels = *channels
	type xy struct{ x, y int }
	var list []xy
	for _, p := range pts {
		xs, ys, ok := strings.Cut(p, ",")
		x, err1 := strconv.Atoi(xs)
		y, err2 := strconv.Atoi(ys)
		if !ok || err1 != nil || err2 != nil {
			return UsageErr("pixel %q must be X,Y with whole numbers", text.Clip(p, 40))
		}
		if x < -export.MaxSide || y < -export.MaxSide || x > 2*export.MaxSide || y > 2*export.MaxSide {
			return UsageErr("pixel %d,%d is out of range (each coordinate from -%d to %d)", x, y, export.MaxSide, 2*export.MaxSide)
		}
		list = append(list, xy{x, y})
	}
	if !*exact {
		// Deep views: one reference orbit for every pixel probed, as a picture has.
		if f, err = f.WithReference(context.Background(), nil, nil); err != nil {
			return err
		}
	}
	for _, p := range list {
		var n int
		var t, stripe float64
		if *exact {
			// In math/big: the radius, T and STRIPE too on the orbit path (see Frame.EscapeBig).
			n, t, stripe = f.EscapeBig(p.x, p.y, *channels)
		} else if *channels {
			r := f.PixelChannels(p.x, p.y)
			n, t, stripe = r.N, r.T, r.Stripe
		} else {
			n, _ = f.Escape(p.x, p.y)
		}
		line := fmt.Sprintf("%d %d %d", p.x, p.y, n)
		if *channels {
			line += fmt.Sprintf(" %.6f %.6f", t, stripe)
		}
		if _, err := fmt.Fprintln(stdout, line); err != nil {
			return err
		}
	}
	return nil
}
