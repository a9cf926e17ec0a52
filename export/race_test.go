//go:build race

package export

// raceEnabled skips the tests whose cost is numerics, not concurrency, under the race
// detector (its loops run about ten times slower); the run without it has them.
const raceEnabled = true
