//go:build !unix && !windows

package telemetry

// LockDir does not lock where neither flock(2) nor LockFileEx is available.
func LockDir(string) (unlock func(), err error) { return func() {}, nil }

// Lock does not lock where neither flock(2) nor LockFileEx is available.
func Lock(string) (unlock func(), err error) { return func() {}, nil }
