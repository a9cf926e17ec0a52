//go:build race

package cpu

// raceEnabled skips the tests that run millions of math/big iterations, which the race
// detector makes about ten times slower.
const raceEnabled = true
