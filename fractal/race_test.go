//go:build race

package fractal

// raceEnabled shrinks the deep tests' samples under the race detector, which makes the
// arithmetic loops about ten times slower (they share no memory worth checking per pixel).
const raceEnabled = true
