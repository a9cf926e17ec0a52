package fractal

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// A view's rotation (Location.Rotation) turns the picture counter-clockwise by an angle in
// degrees, normalised to (-180, 180]; 0, the default, is the unrotated view. It is one idea
// in one place: the screen's pixel offsets from the centre (x right, y up) turn into the
// complex plane's axes here (PlaneOffset) before they are scaled by the spacing, and the
// plane's directions turn back into the screen's (ScreenOffset) where a direction computed in
// the plane is shown (the slopes colouring's normal). Every renderer reaches it through
// Frame.Offsets (and so Point64, Point32, PointBig, Delta, DeltaExp), the moves of the view
// (Location.Offset, ZoomAt) through PlaneOffset, and the GPU shaders through the cosine and
// sine uploaded with the view (RotationCosSin).
//
// The rotation acts on the float64 (or Exp) offset of a pixel from the exact decimal centre,
// so it is as exact at 1e1000 as at 1: a pixel's offset is a few thousand spacings at most,
// and its rotated float64 value is within a rounding of the exact one.
//
// The picture turns counter-clockwise on the screen: a view at rotation ρ shows the plane point
// centre + e^{-iρ} s × spacing at screen offset s (x right, y up), so a feature at angle θ
// from the centre in the plane appears at angle θ + ρ on the screen.

// maxRotationText bounds the length of a rotation's text, as the command line and files give it.
const maxRotationText = 40

// ParseRotation reads a rotation angle in degrees (a finite number; spaces around it allowed),
// as --rotation and the location text's rotation= take it, and returns it normalised to
// (-180, 180] (NormaliseRotation). The error names what is wrong.
func ParseRotation(s string) (float64, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(t, 64)
	if len(t) > maxRotationText || err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("rotation %q must be a number of degrees", text.Clip(s, 40))
	}
	return NormaliseRotation(v), nil
}

// NormaliseRotation is deg turned into (-180, 180] (360 is 0, -180 is 180); a value that is
// not finite is 0. -0 is 0, so that equal views compare equal.
func NormaliseRotation(deg float64) float64 {
	if math.IsNaN(deg) || math.IsInf(deg, 0) {
		return 0
	}
	r := math.Mod(deg, 360) // exact, in (-360, 360)
	switch {
	case r > 180:
		r -= 360
	case r <= -180:
		r += 360
	}
	if r == 0 {
		return 0 // and not -0
	}
	return r
}

// validateRotation reports a rotation that is not normalised (a Location built by hand or
// read from a file).
func validateRotation(deg float64) error {
	if !(deg > -180 && deg <= 180) {
		return fmt.Errorf("rotation %s is out of range (-180 to 180 degrees)", strconv.FormatFloat(deg, 'g', -1, 64))
	}
	return nil
}

// RotationCosSin is the cosine and sine of a rotation of deg degrees, exact (0, 1 or -1) at
// the multiples of 90 degrees, so that a quarter turn maps pixels onto pixels.
func RotationCosSin(deg float64) (c, s float64) {
	switch deg {
	case 0:
		return 1, 0
	case 90:
		return 0, 1
	case 180, -180:
		return -1, 0
	case -90, 270:
		return 0, -1
	}
	s, c = math.Sincos(deg * (math.Pi / 180))
	return c, s
}

// PlaneOffset turns a screen offset (dx right, dy up, in any unit) into the complex plane's
// axes in l's rotation: the offset of the plane point shown there from the centre, in the
// same unit. At rotation 0 it is (dx, dy) itself.
func (l Location) PlaneOffset(dx, dy float64) (re, im float64) {
	if l.Rotation == 0 {
		return dx, dy
	}
	c, s := RotationCosSin(l.Rotation)
	return dx*c + dy*s, dy*c - dx*s
}

// ScreenOffset is PlaneOffset's inverse: a plane offset (or direction) from the centre as
// the screen shows it (x right, y up).
func (l Location) ScreenOffset(re, im float64) (dx, dy float64) {
	if l.Rotation == 0 {
		return re, im
	}
	c, s := RotationCosSin(l.Rotation)
	return re*c - im*s, re*s + im*c
}

// setRotation sets l's rotation from the location text's rotation= (ParseRotation); on an
// error l is unchanged.
func (l *Location) setRotation(v string) error {
	r, err := ParseRotation(v)
	if err == nil {
		l.Rotation = r
	}
	return err
}

// rotationText is l's rotation as the location text writes it: " rotation=DEG", "" at 0.
func (l Location) rotationText() string {
	if l.Rotation == 0 {
		return ""
	}
	return " rotation=" + strconv.FormatFloat(l.Rotation, 'g', -1, 64)
}
