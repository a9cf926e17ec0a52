// Package colour turns computed samples into colours, the one definition every renderer and
// file reproduces. A Coloring is how a view is coloured: a palette (the built-in ones, from
// assets, or a user's Gradient: stops, or a Kalles Fraktaler .kfr or .kfp) indexed by the smooth
// escape count through a transfer function (linear, sqrt, log), a density and an offset,
// shaded by a method: smooth (none), distance (the exterior distance estimate, lines of a
// width in pixels at any zoom) or slopes (lighting from the normal); or histogram, the palette
// at the share of the picture's pixels with a lower count (a Histogram of the whole picture,
// carried as its Equalisation). A colouring shader (Coloring.Shader: GLSL in Kalles
// Fraktaler's form) replaces the method; it runs on OpenGL, through a ShaderPainter.
// Coloring.Shade is the colour of one Sample. A Data holds a frame's samples (escape count, smooth value,
// derivative), and a Colourer colours them fast and alike (Shade's colours), for exports,
// recolouring and the supersampled means (MeanInto). AutoDensity chooses a density from a
// view's escape counts. The samples themselves are package fractal's.
package colour
