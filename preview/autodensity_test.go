package preview

import (
	"bytes"
	"context"
	"image"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// spreadRenderer gives every pixel a smooth count of its own, 1e5 + 37 per pixel index: a
// view whose counts span tens of thousands of iterations, as deep views' do.
type spreadRenderer struct{}

func (spreadRenderer) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		row := dst.Row(dst.Rect.Min.Y + y - rect.Min.Y)
		for x := rect.Min.X; x < rect.Max.X; x++ {
			row[x-rect.Min.X] = colour.Sample{Nu: 1e5 + 37*float64(y*f.W+x)}
		}
	}
	return ctx.Err()
}

func (r spreadRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	d := colour.NewData(rect)
	if err := r.Compute(ctx, f, rect, d); err != nil {
		return err
	}
	k, err := colour.NewColourer(f.Loc.Color)
	if err != nil {
		return err
	}
	k.Paint(dst, d)
	return nil
}

// An automatic density is chosen from the full frame's data and the frame is drawn in it;
// the next requests of the view are drawn in it too, and an explicit density is kept.
func TestWorkerFollowsAutoDensity(t *testing.T) {
	const w, h = 48, 30
	rs := newResults(t)
	wk := NewWorker(New(spreadRenderer{}), time.Millisecond, rs.deliver)
	defer wk.Close()
	loc := boundaryLoc()
	loc.Color = colour.DefaultColoring
	if !loc.Color.AutoDensity {
		t.Fatal("the default colouring's density is not automatic")
	}
	wk.Request(loc, w, h, false)
	full := func(r Result) bool { return r.Image != nil && !r.Partial && r.Samples == 0 && !r.Stats.Recoloured }
	res, i := rs.wait("the full frame", 0, full)
	data := colour.NewData(image.Rect(0, 0, w, h))
	if err := (spreadRenderer{}).Compute(context.Background(), fractal.NewFrame(loc, w, h), data.Rect, data); err != nil {
		t.Fatal(err)
	}
	want := colour.AutoDensity(colour.DataNus(data, "", colour.AutoSamples), "")
	got := res.Req.Loc.Color
	if want == 1 || got.Density != want || !got.AutoDensity || wk.AutoDensity() != want {
		t.Fatalf("drawn with density %v (automatic %v, worker %v), want %v (not 1)", got.Density, got.AutoDensity, wk.AutoDensity(), want)
	}
	k, _ := colour.NewColourer(got)
	img := image.NewRGBA(data.Rect)
	k.Paint(img, data)
	if !bytes.Equal(img.Pix, res.Image.Pix) {
		t.Error("the frame is not drawn in the density chosen")
	}
	seq := wk.Request(loc, w, h, false) // density 1, automatic (a colour-only request: recoloured)
	res, _ = rs.wait("the next frame", i+1, func(r Result) bool { return r.Image != nil && !r.Partial && r.Req.Seq == seq })
	if res.Req.Loc.Color.Density != want {
		t.Errorf("the next request drawn with density %v, want %v", res.Req.Loc.Color.Density, want)
	}
	exp := loc
	exp.Color.AutoDensity, exp.Color.Density = false, 2
	seq = wk.Request(exp, w, h, false)
	res, _ = rs.wait("an explicit density's frame", i+1, func(r Result) bool { return r.Image != nil && !r.Partial && r.Req.Seq == seq })
	if res.Req.Loc.Color != exp.Color {
		t.Errorf("an explicit density drawn as %+v", res.Req.Loc.Color)
	}
}

// The histogram colouring: the full frame is coloured with its own counts' equalisation, and
// the next request of the view (a colour-only change, recoloured) colours with it too.
func TestWorkerEqualisesHistogram(t *testing.T) {
	const w, h = 48, 30
	rs := newResults(t)
	wk := NewWorker(New(spreadRenderer{}), time.Millisecond, rs.deliver)
	defer wk.Close()
	loc := boundaryLoc()
	loc.Color = colour.Coloring{Palette: "classic", Density: 1, Method: colour.MethodHistogram}
	wk.Request(loc, w, h, false)
	full := func(r Result) bool { return r.Image != nil && !r.Partial && r.Samples == 0 && !r.Stats.Recoloured }
	res, i := rs.wait("the full frame", 0, full)
	data := colour.NewData(image.Rect(0, 0, w, h))
	if err := (spreadRenderer{}).Compute(context.Background(), fractal.NewFrame(loc, w, h), data.Rect, data); err != nil {
		t.Fatal(err)
	}
	want := loc.Color.Equalise(data)
	k, _ := colour.NewColourer(want)
	img := image.NewRGBA(data.Rect)
	k.Paint(img, data)
	if !res.Req.Loc.Color.Equal.Same(want.Equal) || !bytes.Equal(img.Pix, res.Image.Pix) {
		t.Fatal("the frame is not coloured with its own counts")
	}
	loc.Color.Offset = 0.5
	seq := wk.Request(loc, w, h, false)
	res, _ = rs.wait("the recoloured frame", i+1, func(r Result) bool { return r.Image != nil && !r.Partial && r.Req.Seq == seq })
	want.Offset = 0.5
	k, _ = colour.NewColourer(want)
	k.Paint(img, data)
	if !bytes.Equal(img.Pix, res.Image.Pix) {
		t.Error("the recoloured frame is not coloured with the frame's counts")
	}
}
