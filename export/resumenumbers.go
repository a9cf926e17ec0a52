package export

import (
	"strings"

	"mandelscope/fractal"
)

// resumeSpelling makes a resume's numbers the checkpoint's where they are the same numbers
// written otherwise (a centre of 0.0 resumed as 0, a Julia parameter of 0.0,1 as 0,1), before
// the parameters are compared: the view is the same, so the resume goes on, and the image
// keeps the text it was started with (its header is already written). Numbers that differ
// are left for the comparison to name. A checkpoint that cannot be read changes nothing.
func (o *Options) resumeSpelling(ckpt string) {
	if !o.Resume {
		return
	}
	ck, err := readCheckpoint(ckpt)
	if err != nil {
		return
	}
	text, _, found := strings.Cut(ck.Description, " size=")
	if !found {
		return
	}
	was, err := fractal.ParseLocationText(text, fractal.Home())
	if err != nil {
		return
	}
	l := &o.Location
	for _, p := range []struct{ now, was *fractal.Decimal }{
		{&l.Re, &was.Re}, {&l.Im, &was.Im}, {&l.Zoom, &was.Zoom},
	} {
		if p.now.SameNumber(*p.was) {
			*p.now = *p.was
		}
	}
	if l.Julia.On && was.Julia.On && l.Julia.Re.SameNumber(was.Julia.Re) && l.Julia.Im.SameNumber(was.Julia.Im) {
		l.Julia = was.Julia
	}
}
