//go:build race

package gamma

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
