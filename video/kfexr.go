package video

// Keyframes as OpenEXR files in Kalles Fraktaler's zoom-out layout (`video --keyframes-only
// --exr`): one file per halving of the zoom, from the end view out to the start zoom, each
// of the frame's size, named NNNNN_ZOOM.exr from 00001 (the deepest) as KF's "Store zoom out
// images" names them, with the channels KF and Fraktaler-3 write (N, NF, DEX, DEY: the raw
// export's, export.RawChannels) and N offset by KF's iteration bias, recorded in the header
// as KF records it ("Iterations", "IterationsBias"); an estimate without a normal, NaN in the
// raw export's DEY, is 0 there (KF's readers take the length of (DEX, DEY)). Each file is written to NAME.tmp and
// renamed into place when complete, so a resume keeps every file there and computes the rest.

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/exr"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/internal/tile"
	"mandelscope/internal/userfile"
)

// Header attributes of a keyframe file beyond the raw export's location and version.
const (
	// EXRKeyIterations and EXRKeyBias are Kalles Fraktaler's: the iteration limit, and the
	// bias added to every escaped pixel's N (the escape count is N - bias + NF).
	EXRKeyIterations = "Iterations"
	EXRKeyBias       = "IterationsBias"
	// EXRKeyKF is Kalles Fraktaler's own attribute, its location file's text (KFR), which KF
	// reads when it opens the file as a location: written for the Mandelbrot set alone (KF
	// numbers its formulas and Julia sets otherwise), with the view's centre, zoom and
	// iterations and KF's defaults for the rest.
	EXRKeyKF = "KallesFraktaler2+"
	// EXRKeyIndex is the file's index in its sequence (0: the deepest), EXRKeyCount the
	// number of files.
	EXRKeyIndex = "mandelscope.keyframe"
	EXRKeyCount = "mandelscope.keyframes"
	// EXRKeyLayout is the files' layout: "flat" (a view) or "exponential map" (rings: see
	// EXROptions.ExpMap).
	EXRKeyLayout = "mandelscope.layout"
)

// The layouts EXRKeyLayout names.
const (
	layoutFlat   = "flat"
	layoutExpMap = "exponential map"
)

// EXRBias is the bias added to N, Kalles Fraktaler's and Fraktaler-3's (1024): their readers
// take it from the header, or assume it where the header has none.
const EXRBias = 1024

// EXROptions describe a keyframe sequence written as OpenEXR files (WriteEXRKeyframes).
type EXROptions struct {
	// Location is the end view (the deepest file); StartZoom the least zoom the sequence
	// reaches (the zero Decimal: 1).
	Location  fractal.Location
	StartZoom fractal.Decimal
	// Width, Height are each file's size in samples.
	Width, Height int
	// ExpMap lays each file out as Fraktaler-3's exponential map, which zoomasm reads:
	// column x is the angle 2 pi (x+0.5)/Width (counter-clockwise from the positive real
	// axis) and file row y the ring of radius R x 2^((y+0.5)/Height - 1) pixels about the
	// centre, R = hypot(Width, Height)/2 and a pixel 4/zoom/Height, so that the top row is the
	// innermost ring, the bottom row the outermost, and each file's rings go on from the next
	// deeper file's (one halving of the radius a file). The width must be at least the
	// height; 2 pi/ln 2 (about 9.06) times it makes square pixels (zoomasm's 12288x1360).
	ExpMap bool
	// Dir is the folder of the files: new or empty, unless Resume (keep the files of this
	// sequence found there, compute the rest) or Force (also replace files of this sequence's
	// names that hold another view).
	Dir           string
	Resume, Force bool
	// Version is the program's version, for the header.
	Version string
	// Progress and Notice, when set, are told how far the work has come and of each file
	// found unsound and written again.
	Progress func(Progress)
	Notice   func(msg string)

	// afterFile, when set, is called after file i is written (tests interrupt there).
	afterFile func(i int) error
}

// EXRSummary is what WriteEXRKeyframes did.
type EXRSummary struct {
	Files, Computed, Reused int
	Names                   []string // the files' names, deepest first
	Total                   time.Duration
}

// EXRZooms are the files' zooms, deepest first: the end zoom halved until it reaches the
// start zoom (within a hundredth of a halving, as NewPlan plans keyframes), and no further
// than the least zoom a view may have.
func EXRZooms(start, end fractal.Decimal) ([]fractal.Decimal, error) {
	if start == (fractal.Decimal{}) {
		start = fractal.MustDecimal("1")
	}
	if err := fractal.CheckZoom(start); err != nil {
		return nil, fmt.Errorf("start zoom: %v", err)
	}
	l := end.Exp().Log2() - start.Exp().Log2()
	if !(l > 0) || math.IsInf(l, 0) {
		return nil, fmt.Errorf("the start zoom %s must be below the end zoom %s", fractal.FormatZoom(start.Exp()), fractal.FormatZoom(end.Exp()))
	}
	n := int(math.Ceil(l-0.01)) + 1
	if n > MaxFrames {
		return nil, fmt.Errorf("%d keyframes from zoom %s to %s is too many", n, fractal.FormatZoom(start.Exp()), fractal.FormatZoom(end.Exp()))
	}
	zs := []fractal.Decimal{end}
	for i := 1; i < n; i++ {
		z := fractal.DecimalFromExp(end.Exp().Ldexp(-i))
		if fractal.CheckZoom(z) != nil {
			break
		}
		zs = append(zs, z)
	}
	return zs, nil
}

// EXRName is file i's name (0: the deepest, of zoom z): Kalles Fraktaler's, numbered from 1.
func EXRName(i int, z fractal.Decimal) string {
	return fmt.Sprintf("%05d_%s.exr", i+1, z.Exp().Text(3))
}

// exrSet is a sequence's files: their zooms and names, and the header each must have.
type exrSet struct {
	opt   EXROptions
	zooms []fractal.Decimal
	names []string
}

// newEXRSet checks opt's numbers and plans its files.
func newEXRSet(opt EXROptions) (*exrSet, error) {
	if opt.Width < 1 || opt.Height < 1 || opt.Width > MaxSide*MaxKeyScale || opt.Height > MaxSide*MaxKeyScale {
		return nil, fmt.Errorf("size %dx%d is out of range (each side 1 to %d)", opt.Width, opt.Height, MaxSide*MaxKeyScale)
	}
	if err := opt.Location.Validate(); err != nil {
		return nil, err
	}
	if opt.Dir == "" {
		return nil, errors.New("no output folder given")
	}
	if opt.ExpMap && opt.Width < opt.Height {
		return nil, fmt.Errorf("size %dx%d: an exponential map is at least as wide as it is tall (its width is the angle, its height one halving of the radius; zoomasm's is 12288x1360)", opt.Width, opt.Height)
	}
	zs, err := EXRZooms(opt.StartZoom, opt.Location.Zoom)
	if err != nil {
		return nil, err
	}
	s := &exrSet{opt: opt, zooms: zs}
	for i, z := range zs {
		s.names = append(s.names, EXRName(i, z))
	}
	return s, nil
}

// loc is file i's location.
func (s *exrSet) loc(i int) fractal.Location {
	l := s.opt.Location
	l.Zoom = s.zooms[i]
	return l
}

// header is file i's OpenEXR header.
func (s *exrSet) header(i int) (exr.Header, error) {
	loc := s.loc(i)
	t := loc.String()
	if len(t) > exr.MaxStringLen {
		return exr.Header{}, fmt.Errorf("the location's text (%d bytes) is too long for an OpenEXR header", len(t))
	}
	h := exr.Header{
		Width: s.opt.Width, Height: s.opt.Height, Channels: export.RawChannels(),
		Strings: map[string]string{
			export.RawKeyLocation: t, export.RawKeyVersion: s.opt.Version,
			export.RawKeyComments: fmt.Sprintf("Mandelscope %s: keyframe %d of %d, zoom %s", s.opt.Version, i+1, len(s.zooms), fractal.FormatZoom(loc.ZoomExp())),
		},
		Ints: map[string]int32{
			EXRKeyIterations: int32(loc.Iterations), EXRKeyBias: EXRBias,
			EXRKeyIndex: int32(i), EXRKeyCount: int32(len(s.zooms)),
		},
	}
	h.Strings[EXRKeyLayout] = layoutFlat
	if s.opt.ExpMap {
		h.Strings[EXRKeyLayout] = layoutExpMap
	}
	if !loc.IsJulia() && loc.Formula.IsMandelbrot() {
		h.Strings[EXRKeyKF] = kfrText(loc, s.opt.Width, s.opt.Height)
	}
	return h, nil
}

// kfrText is a Mandelbrot set view of a w x h image as the lines of a KF location file KF
// reads ("Re: X", "Im: Y", "Zoom: Z", "Iterations: N", CRLF after each; KF takes its defaults
// for the rest). KF's zoom spans 4/zoom across the image's height, this program's across its
// shorter side: the same number for a landscape image, w/h times it for a portrait one.
func kfrText(loc fractal.Location, w, h int) string {
	z := loc.Zoom
	if w < h {
		z = fractal.DecimalFromExp(z.Exp().MulFloat(float64(w) / float64(h)))
	}
	return fmt.Sprintf("Re: %s\r\nIm: %s\r\nZoom: %s\r\nIterations: %d\r\n", loc.Re.String(), loc.Im.String(), z.String(), loc.Iterations)
}

// CheckEXR validates opt as WriteEXRKeyframes would before any work: the numbers, and the
// folder (a file there, or a folder holding anything but this sequence's files, is refused
// unless Resume or Force says what to do with it).
func CheckEXR(opt EXROptions) error {
	s, err := newEXRSet(opt)
	if err != nil {
		return err
	}
	if workBusy(filepath.Clean(opt.Dir), opt.Dir) != nil {
		return busyEXR(opt.Dir)
	}
	_, err = s.survey()
	return err
}

// busyEXR is the error of a run refused because another holds dir's lock.
func busyEXR(dir string) error {
	return &Error{ErrBusy, fmt.Sprintf("another mandelscope is writing keyframes in %s (it holds %s)", dir, workLockPath(filepath.Clean(dir)))}
}

// survey checks the folder and says which files are there and sound (this sequence's,
// complete): keep[i]. A file of this sequence's name that is another view's is refused
// unless Force, one damaged is told to Notice (to be written again), and any other .exr file
// is refused: zoomasm and KF would read it as one of the sequence.
func (s *exrSet) survey() (keep []bool, err error) {
	dir := s.opt.Dir
	keep = make([]bool, len(s.zooms))
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(filepath.Clean(dir))
		if pst, perr := os.Stat(parent); perr != nil || !pst.IsDir() {
			return nil, fmt.Errorf("%s: no folder %s to make it in", dir, parent)
		}
		return keep, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder: the keyframes go in a folder (-o DIR)", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var others []string
	for _, e := range ents {
		n := e.Name()
		if slices.Contains(s.names, n) {
			continue
		} else if strings.HasSuffix(n, ".tmp") && slices.Contains(s.names, strings.TrimSuffix(n, ".tmp")) {
			continue // an interrupted file's: replaced when it is written
		}
		others = append(others, n)
	}
	have := 0
	for _, n := range s.names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			have++
		}
	}
	if !s.opt.Resume && !s.opt.Force && (have > 0 || len(others) > 0) {
		return nil, fmt.Errorf("%s is not empty (%d entries): give a new or empty folder, --resume to continue the keyframes written there, or --force to write them again", dir, have+len(others))
	}
	for _, n := range others {
		if strings.EqualFold(filepath.Ext(n), ".exr") {
			return nil, fmt.Errorf("%s holds %s, which is not one of these keyframes (zoomasm and Kalles Fraktaler would read it as one): move it away or use another folder", dir, text.Clip(n, 80))
		}
	}
	if !s.opt.Resume {
		return keep, nil // Force: every file is written again
	}
	for i, n := range s.names {
		err := s.checkFile(i)
		switch {
		case err == nil:
			keep[i] = true
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, errForeign) && !s.opt.Force:
			return nil, fmt.Errorf("%s: %v; --force replaces it", filepath.Join(dir, n), err)
		default:
			if s.opt.Notice != nil {
				s.opt.Notice(fmt.Sprintf("%s: %v; writing it again", filepath.Join(dir, n), err))
			}
		}
	}
	return keep, nil
}

// checkFile reads file i back: nil when it is this sequence's file i, whole; an error
// wrapping errForeign when it is a sound OpenEXR file of another view or size, one wrapping
// fs.ErrNotExist when there is none, another when it is damaged.
func (s *exrSet) checkFile(i int) error {
	want, err := s.header(i)
	if err != nil {
		return err
	}
	f, err := userfile.Open(filepath.Join(s.opt.Dir, s.names[i]))
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	rd, err := exr.NewReader(f, st.Size())
	if err != nil {
		return err
	}
	h := rd.Header()
	// The view decides the samples; the colouring recorded beside it does not.
	wl := s.loc(i)
	got, err := fractal.ParseLocationText(h.Strings[export.RawKeyLocation], fractal.Location{})
	got.Color = wl.Color
	if err != nil || got.String() != wl.String() {
		return fmt.Errorf("%w: it holds another view (%s)", errForeign, text.Clip(h.Strings[export.RawKeyLocation], 80))
	}
	if h.Width != want.Width || h.Height != want.Height {
		return fmt.Errorf("%w: it is %dx%d, not %dx%d", errForeign, h.Width, h.Height, want.Width, want.Height)
	}
	if got, ok := h.Strings[EXRKeyLayout]; (ok || s.opt.ExpMap) && got != want.Strings[EXRKeyLayout] {
		// A file without the attribute is of the flat layout, the only one written before.
		return fmt.Errorf("%w: its layout is %q, not %q", errForeign, text.Clip(got, 40), want.Strings[EXRKeyLayout])
	}
	wantCh := slices.SortedFunc(slices.Values(want.Channels), func(a, b exr.Channel) int { return strings.Compare(a.Name, b.Name) })
	if !slices.Equal(h.Channels, wantCh) || h.Ints[EXRKeyBias] != EXRBias || h.Ints[EXRKeyIterations] != want.Ints[EXRKeyIterations] {
		return fmt.Errorf("%w: its channels or iteration attributes differ", errForeign)
	}
	n := exr.LinesPerChunk * max(1, keyStripRows(h.Width)/exr.LinesPerChunk)
	for y := 0; y < h.Height; y += n {
		if _, err := rd.ReadLines(y, min(n, h.Height-y)); err != nil {
			return err
		}
	}
	return nil
}

// WriteEXRKeyframes writes opt's keyframe files: the deepest first (its reference orbit
// serves every shallower one), each computed strip by strip through c and written to
// NAME.tmp, renamed into place when whole. A cancel keeps the files written (a resume
// computes the rest).
func WriteEXRKeyframes(ctx context.Context, c tile.Computer, opt EXROptions) (EXRSummary, error) {
	t0 := time.Now()
	s, err := newEXRSet(opt)
	if err != nil {
		return EXRSummary{}, err
	}
	// One run at a time writes the folder: two would write the same NAME.tmp and rename it
	// from under each other. The lock is DIR.lock, beside the folder (lockWork).
	if st, err := os.Stat(filepath.Dir(filepath.Clean(opt.Dir))); err == nil && st.IsDir() {
		unlock, err := lockWork(filepath.Clean(opt.Dir), false, opt.Dir)
		if errors.Is(err, ErrBusy) {
			return EXRSummary{}, busyEXR(opt.Dir)
		}
		if err != nil {
			return EXRSummary{}, err
		}
		defer unlock()
	}
	keep, err := s.survey()
	if err != nil {
		return EXRSummary{}, err
	}
	sum := EXRSummary{Files: len(s.names), Names: slices.Clone(s.names)}
	if err := os.Mkdir(opt.Dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return sum, err
	}
	var todo []int
	for i := range s.names {
		if keep[i] {
			sum.Reused++
		} else {
			todo = append(todo, i)
		}
	}
	refs := &fractal.ReferenceCache{}
	for k, i := range todo {
		if opt.Progress != nil {
			opt.Progress(Progress{Phase: "keyframes", Done: k, Total: len(todo), Fraction: float64(k) / float64(len(todo))})
		}
		f := s.frame(i)
		f.Derivative = true // DEX and DEY, as the raw export computes them
		f, err := f.WithReference(ctx, refs, nil)
		if err == nil {
			err = s.writeFile(ctx, c, f, i)
		}
		if err != nil {
			if ctx.Err() != nil {
				return sum, &Error{ErrInterrupted, fmt.Sprintf("interrupted; %s keeps %d of %d keyframes (--resume computes the rest)", opt.Dir, sum.Reused+sum.Computed, len(s.names))}
			}
			return sum, fmt.Errorf("keyframe %s: %v", s.names[i], err)
		}
		sum.Computed++
		if opt.afterFile != nil {
			if err := opt.afterFile(i); err != nil {
				return sum, err
			}
		}
	}
	if opt.Progress != nil {
		opt.Progress(Progress{Phase: "keyframes", Done: len(todo), Total: len(todo), Fraction: 1})
	}
	sum.Total = time.Since(t0)
	return sum, nil
}

// frame is file i's frame, without its reference orbit: a view, or its rings (ExpMap).
func (s *exrSet) frame(i int) fractal.Frame {
	if s.opt.ExpMap {
		return fractal.NewRingFrame(s.loc(i), s.opt.Width, s.opt.Height, 0.5*math.Hypot(float64(s.opt.Width), float64(s.opt.Height)))
	}
	return fractal.NewFrame(s.loc(i), s.opt.Width, s.opt.Height)
}

// writeFile computes frame f strip by strip into file i, through NAME.tmp. A ring frame's
// rows go into the file from the last (the innermost ring, the file's top row) up.
func (s *exrSet) writeFile(ctx context.Context, c tile.Computer, f fractal.Frame, i int) (err error) {
	h, err := s.header(i)
	if err != nil {
		return err
	}
	path := filepath.Join(s.opt.Dir, s.names[i])
	tmp := path + ".tmp"
	out, err := userfile.CreateFresh(tmp, userfile.DefaultPerm)
	if err != nil {
		return err
	}
	defer func() {
		if out != nil {
			out.Close()
		}
		if err != nil {
			os.Remove(tmp)
		}
	}()
	w, err := exr.NewWriter(out, h)
	if err != nil {
		return err
	}
	rows := exr.LinesPerChunk * max(1, keyStripRows(f.W)/exr.LinesPerChunk)
	buf := colour.NewData(image.Rect(0, 0, f.W, min(rows, f.H)))
	m := f.W * min(rows, f.H)
	n, nf, dex, dey := make([]uint32, m), make([]float32, m), make([]float32, m), make([]float32, m)
	for y := 0; y < f.H; y += rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := image.Rect(0, y, f.W, min(y+rows, f.H))
		if f.Rings != nil {
			r.Min.Y, r.Max.Y = f.H-r.Max.Y, f.H-r.Min.Y
		}
		d := &colour.Data{Pix: buf.Pix[:r.Dx()*r.Dy()], Stride: f.W, Rect: r}
		if err := c.Compute(ctx, f, r, d); err != nil {
			return err
		}
		k := 0
		for i := range r.Dy() {
			yy := r.Min.Y + i
			if f.Rings != nil {
				yy = r.Max.Y - 1 - i
			}
			for _, smp := range d.Row(yy) {
				n[k], nf[k], dex[k], dey[k] = kfSample(smp)
				k++
			}
		}
		if err := w.WriteLines(n[:k], nf[:k], dex[:k], dey[:k]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := out.Sync(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	out = nil
	// A rename replaces a link at the name, never what it points to.
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	userfile.SyncDir(s.opt.Dir)
	return nil
}

// kfSample is a sample's values in a keyframe file: the raw export's N (offset by EXRBias,
// the interior's kept), NF, DEX and DEY, but 0 for a DEY that is NaN (the raw export's
// estimate without a normal: KF's readers take the estimate as the length of (DEX, DEY)).
func kfSample(smp colour.Sample) (n uint32, nf, dex, dey float32) {
	n, nf = export.RawSplit(smp.Nu)
	if top := uint32(export.RawInside - 1 - EXRBias); n != export.RawInside && n > top {
		// Past the largest N that takes the bias (never within the iteration limit): the
		// rest goes to NF, as RawSplit does past its own largest N.
		nf, n = float32(smp.Nu-float64(top)), top
	}
	if n != export.RawInside {
		n += EXRBias
	}
	dex, dey = smp.DEX, smp.DEY
	if dey != dey {
		dey = 0
	}
	return n, nf, dex, dey
}
