//go:build !timing

package timingtest

// Enabled says whether the timing suite is built (-tags timing).
const Enabled = false
