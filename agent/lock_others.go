//go:build !unix

package agent

// LockDir does not lock where flock(2) is not available.
func LockDir(string) (unlock func(), err error) { return func() {}, nil }
