package video

// Waypoints: a video's timeline as zooms at given times. The frames' log zoom follows a
// monotone cubic through them (Fritsch and Carlson's conditions, with the weighted harmonic
// mean of the neighbouring slopes at an inner waypoint, as PCHIP takes it): smooth where the
// zoom keeps its direction, never beyond its neighbours (no overshoot: a zoom in from 1e3 to
// 1e6 never passes 1e6 to come back), and exactly constant between two waypoints of the
// same zoom (a hold). Piecewise linear log zoom is monotone too, but its speed jumps at every
// waypoint, which reads as a jolt in a zoom; the cubic starts and ends a hold gently instead
// (its slope is 0 there) and keeps a constant speed through a waypoint whose two sides zoom
// at the same rate. Two waypoints are the constant-speed zoom of --start-zoom and --duration,
// exactly.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// MaxWaypoints bounds a timeline's waypoints.
const MaxWaypoints = 1000

// Waypoint is a point of a video's timeline: the frame at T seconds has the zoom Zoom.
type Waypoint struct {
	T    float64
	Zoom fractal.Decimal
	// Palette, when set, is a built-in palette the frames take from this waypoint's time on
	// (until a later waypoint's palette): a colouring change composed from the same keyframes.
	Palette string
}

// hasPalettes reports whether a waypoint of ws changes the palette.
func hasPalettes(ws []Waypoint) bool {
	for _, w := range ws {
		if w.Palette != "" {
			return true
		}
	}
	return false
}

// ParseWaypoints reads "T:ZOOM,T:ZOOM,..." (seconds, and zooms as exact decimal text); a zoom
// written "end" is end, the end view's (the zero Decimal: left so, for the caller to fill in).
// A waypoint "T:ZOOM:palette=NAME" also changes the palette there (a built-in one).
// It checks each waypoint alone (CheckWaypoints checks them together).
func ParseWaypoints(s string, end fractal.Decimal) ([]Waypoint, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("no waypoints: give TIME:ZOOM,TIME:ZOOM,... (seconds and zooms)")
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxWaypoints {
		return nil, fmt.Errorf("%d waypoints, more than %d", len(parts), MaxWaypoints)
	}
	ws := make([]Waypoint, 0, len(parts))
	for i, p := range parts {
		ts, zs, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			return nil, fmt.Errorf("waypoint %d %q has no colon: write TIME:ZOOM", i+1, text.Clip(p, 40))
		}
		var pal string
		if z, extra, more := strings.Cut(zs, ":"); more {
			zs = z
			name, found := strings.CutPrefix(strings.TrimSpace(extra), "palette=")
			if !found {
				return nil, fmt.Errorf("waypoint %d: %q: after the zoom, write palette=NAME", i+1, text.Clip(extra, 40))
			}
			if _, err := colour.PaletteByName(name); err != nil {
				return nil, fmt.Errorf("waypoint %d: %v", i+1, err)
			}
			pal = name
		}
		t, err := strconv.ParseFloat(strings.TrimSpace(ts), 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("waypoint %d: time %q is not a number of seconds", i+1, text.Clip(ts, 40))
		}
		var z fractal.Decimal
		if strings.TrimSpace(zs) == "end" {
			z = end
		} else if z, err = fractal.ParseDecimal(zs); err != nil {
			return nil, fmt.Errorf("waypoint %d: zoom %v", i+1, err)
		}
		if err := fractal.CheckZoom(z); err != nil && z != (fractal.Decimal{}) {
			return nil, fmt.Errorf("waypoint %d: %v", i+1, err)
		}
		ws = append(ws, Waypoint{T: t, Zoom: z, Palette: pal})
	}
	return ws, nil
}

// FormatWaypoints is ParseWaypoints' text of ws.
func FormatWaypoints(ws []Waypoint) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(w.T, 'g', -1, 64))
		b.WriteByte(':')
		b.WriteString(w.Zoom.String())
		if w.Palette != "" {
			b.WriteString(":palette=")
			b.WriteString(w.Palette)
		}
	}
	return b.String()
}

// CheckWaypoints reports what is wrong with a timeline ending at the view of zoom end: fewer
// than two waypoints, the first not at 0, times that do not increase, a zoom out of range,
// a last zoom other than end, a zoom deeper than end (the end view is the video's deepest:
// its keyframes and its reference orbit serve every frame), or no zoom at all (every
// waypoint at end).
func CheckWaypoints(ws []Waypoint, end fractal.Decimal) error {
	if len(ws) < 2 {
		return fmt.Errorf("%d waypoint: give at least two, the first at 0 s and the last at the end view", len(ws))
	}
	if len(ws) > MaxWaypoints {
		return fmt.Errorf("%d waypoints, more than %d", len(ws), MaxWaypoints)
	}
	if ws[0].T != 0 {
		return fmt.Errorf("the first waypoint is at %g s; it must be at 0", ws[0].T)
	}
	endExp := end.Exp()
	below := false
	for i, w := range ws {
		if math.IsNaN(w.T) || math.IsInf(w.T, 0) {
			return fmt.Errorf("waypoint %d: time %g is not a number of seconds", i+1, w.T)
		}
		if i > 0 && !(w.T > ws[i-1].T) {
			return fmt.Errorf("waypoint %d at %g s is not after waypoint %d at %g s: the times must increase", i+1, w.T, i, ws[i-1].T)
		}
		if err := fractal.CheckZoom(w.Zoom); err != nil {
			return fmt.Errorf("waypoint %d: %v", i+1, err)
		}
		same := w.Zoom.SameNumber(end)
		if !same && w.Zoom.Exp().Cmp(endExp) >= 0 {
			return fmt.Errorf("waypoint %d's zoom %s is deeper than the end view's %s: the last waypoint, the end view, must be the deepest", i+1, text.Clip(w.Zoom.String(), 40), text.Clip(end.String(), 40))
		}
		below = below || !same
	}
	last := ws[len(ws)-1]
	if !last.Zoom.SameNumber(end) {
		return fmt.Errorf("the last waypoint's zoom %s is not the end view's %s", text.Clip(last.Zoom.String(), 40), text.Clip(end.String(), 40))
	}
	if !below {
		return fmt.Errorf("every waypoint's zoom is the end view's %s: there is no zoom to make", text.Clip(end.String(), 40))
	}
	return nil
}

// timeline is log zoom against time: levels y (log2 of the zoom over the plan's start) at
// times t, and the slopes m there of the monotone cubic through them.
type timeline struct {
	t, y, m []float64
}

// newTimeline is the monotone cubic through (t[i], y[i]) (t increasing, at least two):
// Fritsch and Carlson's slopes, 0 at an inner point where the direction turns or a side is
// flat, else the harmonic mean of the secants on either side weighted by their lengths
// (which keeps each slope within 3 times either secant: no overshoot), and the secant at
// each end.
func newTimeline(t, y []float64) *timeline {
	n := len(t)
	d := make([]float64, n-1)
	for i := range d {
		d[i] = (y[i+1] - y[i]) / (t[i+1] - t[i])
	}
	m := make([]float64, n)
	m[0], m[n-1] = d[0], d[n-2]
	for i := 1; i < n-1; i++ {
		if d[i-1]*d[i] <= 0 {
			continue // a turn or a hold: 0
		}
		h0, h1 := t[i]-t[i-1], t[i+1]-t[i]
		w0, w1 := 2*h1+h0, h1+2*h0
		m[i] = (w0 + w1) / (w0/d[i-1] + w1/d[i])
	}
	return &timeline{t: t, y: y, m: m}
}

// at is the level at time x: y[i] exactly at t[i], y[i] exactly on a hold (y[i] ==
// y[i+1]), and between two waypoints the cubic Hermite, held within their levels (against
// rounding: the slopes keep it there).
func (tl *timeline) at(x float64) float64 {
	n := len(tl.t)
	if x <= tl.t[0] {
		return tl.y[0]
	}
	if x >= tl.t[n-1] {
		return tl.y[n-1]
	}
	i := 0
	for i+2 < n && x >= tl.t[i+1] {
		i++
	}
	y0, y1 := tl.y[i], tl.y[i+1]
	if x == tl.t[i] || y0 == y1 {
		return y0
	}
	h := tl.t[i+1] - tl.t[i]
	s := (x - tl.t[i]) / h
	s2, s3 := s*s, s*s*s
	v := (2*s3-3*s2+1)*y0 + (s3-2*s2+s)*h*tl.m[i] + (-2*s3+3*s2)*y1 + (s3-s2)*h*tl.m[i+1]
	return min(max(v, min(y0, y1)), max(y0, y1))
}
