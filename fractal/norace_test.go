//go:build !race

package fractal

const raceEnabled = false
