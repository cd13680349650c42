package wire

import (
	"errors"
	"time"
)

// ReplyTimeout bounds how long a sender that asked for a reply waits for
// it, its connect included: the agent answers within milliseconds, and one
// that has not answered in 2 s is stuck, which the job must not be.
const ReplyTimeout = 2 * time.Second

// The errors of CheckAdd.
var (
	ErrAddWithoutTimes   = errors.New("start and end are required")
	ErrAddEndBeforeStart = errors.New("end is before start")
)

// CheckAdd checks the times of a phase added after it ended (TypeAdd):
// both are set, and the end is not before the start.
func CheckAdd(start, end time.Time) error {
	switch {
	case start.IsZero() || end.IsZero():
		return ErrAddWithoutTimes
	case end.Before(start):
		return ErrAddEndBeforeStart
	}
	return nil
}
