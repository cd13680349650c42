//go:build !unix

package session

import (
	"io"
	"time"
)

type noLock struct{}

func (noLock) Close() error { return nil }

// lockPrivateDir does not lock where flock(2) is not available.
func lockPrivateDir(string) (io.Closer, error) { return noLock{}, nil }

// sweepPrivateDirs removes nothing where a live run's directory cannot be
// told from a dead run's.
func sweepPrivateDirs(string, time.Time) int { return 0 }
