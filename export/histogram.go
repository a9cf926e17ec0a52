package export

// The colourings that need more than a pixel's samples: the histogram colouring's first pass
// (the picture's own escape counts, counted strip by strip before anything is drawn), and a
// colouring shader's painter.

import (
	"context"
	"fmt"
	"image"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
)

// equalise gives frame's histogram colouring (colour.MethodHistogram) the equalisation of the
// picture's own samples (colour.Histogram), unless it holds one already (a recolour's, counted
// from its raw file): every strip of the whole frame (a shard's export counts them all, so that
// its part is coloured as the whole picture) is computed by the export's renderer, one strip's
// samples in memory at a time, and counted. The second pass, the export itself, computes them
// again and colours them: twice the computing, and memory for one strip of samples and one
// count per distinct escape count (at most the iterations). Other colourings return frame as
// it is.
func (e *exporter) equalise(ctx context.Context, frame fractal.Frame) (fractal.Frame, error) {
	if !frame.Loc.Color.IsHistogram() || frame.Loc.Color.Equal != nil {
		return frame, nil
	}
	c := e.comp
	if c == nil {
		c, _ = e.r.(tile.Computer)
	}
	if c == nil {
		return frame, fmt.Errorf("%s does not compute samples, which the histogram colouring counts first", e.r.Name())
	}
	p := e.plan
	w := p.W * p.N
	buf := colour.NewData(image.Rect(0, 0, w, min(p.StripRows*p.N, p.H*p.N)))
	var h colour.Histogram
	for k := range p.Strips {
		if err := ctx.Err(); err != nil {
			return frame, err
		}
		y0, y1 := p.Strip(k)
		r := image.Rect(0, y0*p.N, w, y1*p.N)
		d := &colour.Data{Pix: buf.Pix[:w*r.Dy()], Stride: w, Rect: image.Rect(0, 0, w, r.Dy())}
		if err := c.Compute(ctx, frame, r, d); err != nil {
			return frame, fmt.Errorf("counting the picture's escape counts for the histogram colouring: %w", err)
		}
		h.Add(d)
	}
	frame.Loc.Color.Equal = h.Equalisation()
	e.opt.Location.Color.Equal = frame.Loc.Color.Equal
	return frame, nil
}

// rawEqualisation is the equalisation of a raw file's samples (colour.Histogram), read strip
// by strip (rows lines at a time): the first of a histogram recolour's two passes over the data.
func rawEqualisation(ctx context.Context, raw *RawFile, rows int) (*colour.Equalisation, error) {
	w, h := raw.Samples()
	rows = max(1, min(rows, h))
	buf := colour.NewData(image.Rect(0, 0, w, rows))
	var hist colour.Histogram
	for y0 := 0; y0 < h; y0 += rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		y1 := min(y0+rows, h)
		d := &colour.Data{Pix: buf.Pix[:w*(y1-y0)], Stride: w, Rect: image.Rect(0, y0, w, y1)}
		if err := raw.ReadSamples(d, y0, y1); err != nil {
			return nil, err
		}
		hist.Add(d)
	}
	return hist.Equalisation(), nil
}

// checkShader finds the painter of the location's colouring shader (Options.ShaderPainter,
// else the renderer) and compiles the shader with it, before any work: a shader that does
// not compile is refused with the compiler's message and line, and one where there is no
// OpenGL with colour.ErrNoShaderPainter. The export then computes each strip's samples and
// runs the shader over the whole strip (a neighbour is read across tiles).
func (e *exporter) checkShader() error {
	c := e.opt.Location.Color
	if !c.HasShader() {
		return nil
	}
	p := e.opt.ShaderPainter
	if p == nil {
		p, _ = e.r.(colour.ShaderPainter)
	}
	if p == nil {
		return colour.ErrNoShaderPainter
	}
	if err := p.CompileColourShader(c.ShaderName(), c.Shader); err != nil {
		return err
	}
	e.painter = p
	if _, ok := e.r.(*rawSource); ok {
		return nil // a recolour's source runs the shader over the raw file's strips itself
	}
	if e.comp == nil {
		var ok bool
		if e.comp, ok = e.r.(tile.Computer); !ok {
			return fmt.Errorf("%s does not compute samples, which a colour shader colours", e.r.Name())
		}
	}
	e.needData = true
	return nil
}

// shaderPicture is what frame's colouring shader is told of it.
func shaderPicture(f fractal.Frame) colour.ShaderPicture {
	return colour.ShaderPicture{Width: f.W, Height: f.H, Iterations: f.Loc.Iterations, ZoomLog2: f.Loc.Zoom.Log2(), Coloring: f.Loc.Color}
}

// shadeStrip colours a strip's samples (data, its rows from the frame's row top on) with the
// colouring shader into buf: with colour.ShaderMargin rows of the strips above and below,
// computed here, so that a shader reading its neighbours colours the strip's edge rows as it
// would colour them in the whole picture.
func (e *exporter) shadeStrip(ctx context.Context, data *colour.Data, top int, buf *image.RGBA) error {
	f := e.frame
	w, rows := data.Rect.Dx(), data.Rect.Dy()
	strip := image.Rect(0, top, w, top+rows)
	wide := image.Rect(0, max(0, top-colour.ShaderMargin), w, min(f.H, top+rows+colour.ShaderMargin))
	d := colour.NewData(wide)
	for y := range rows {
		copy(d.Row(top+y), data.Row(data.Rect.Min.Y+y))
	}
	for _, r := range []image.Rectangle{image.Rect(0, wide.Min.Y, w, top), image.Rect(0, strip.Max.Y, w, wide.Max.Y)} {
		if r.Empty() {
			continue
		}
		if err := e.comp.Compute(ctx, f, r, d.SubData(r)); err != nil {
			return err
		}
	}
	return paintInner(ctx, e.painter, shaderPicture(f), d, strip, buf)
}

// paintInner colours the samples d (in the picture's pixels, inner and its neighbours) with
// pic's colouring shader, run by p, and writes the pixels inner of them into dst, whose
// top-left pixel receives inner.Min.
func paintInner(ctx context.Context, p colour.ShaderPainter, pic colour.ShaderPicture, d *colour.Data, inner image.Rectangle, dst *image.RGBA) error {
	c := pic.Coloring
	img := image.NewRGBA(d.Rect)
	if err := p.PaintColourShader(ctx, pic, c.ShaderName(), c.Shader, d, d.Rect.Min, img); err != nil {
		return err
	}
	for y := range inner.Dy() {
		o := img.PixOffset(inner.Min.X, inner.Min.Y+y)
		copy(dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y):], img.Pix[o:o+4*inner.Dx()])
	}
	return nil
}
