//go:build !race

package gamma

const raceEnabled = false
