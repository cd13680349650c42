package rundiff

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrLimit is a limit that could not be read.
var ErrLimit = errors.New("not a limit")

// FailFloor is the shortest base duration of a phase that a relative
// limit (--fail-if-slower 20%) applies to: a phase of 0.3 s that takes
// 0.9 s is three times as long, but that is the jitter of starting a
// process or two on a busy machine, not a regression to fail a build for.
// A regression of short phases shows in the job's own line, which always
// counts, and an absolute limit (30s) applies to every phase.
const FailFloor = time.Second

// Limit is how much slower than its base a run may be: by a share of the
// base duration (Rel, 0.2 for 20 %) or by a duration (Abs).
type Limit struct {
	Rel float64
	Abs time.Duration
}

// MaxPercent is the largest relative limit: a run ten thousand times as
// long as its base. A larger figure is a typing error (a duration meant,
// or a factor written as a percentage), refused rather than read as a
// check that can never fail.
const MaxPercent = 1e6

// ParseLimit reads a limit: a percentage, a decimal number from 0 to
// MaxPercent followed by "%" ("20%", "2.5%"), or a duration as Go writes
// them ("30s", "1m30s"). A percentage is plain decimal digits: NaN, Inf,
// exponents, hexadecimal and digit separators, which strconv.ParseFloat
// takes, are refused (a NaN limit would never fail).
func ParseLimit(s string) (Limit, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		if !decimal(p) || err != nil || v > MaxPercent {
			return Limit{}, fmt.Errorf("%w: %q (a percentage is a decimal number from 0 to %g, such as 20%%)", ErrLimit, s, float64(MaxPercent))
		}
		return Limit{Rel: v / 100}, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return Limit{}, fmt.Errorf("%w: %q (say 20%% or a duration such as 30s)", ErrLimit, s)
	}
	return Limit{Abs: d}, nil
}

// decimal reports whether s is digits with at most one decimal point
// among them ("20", "2.5", ".5").
func decimal(s string) bool {
	digits, point := 0, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// String writes the limit as ParseLimit reads it.
func (l Limit) String() string {
	if l.Abs > 0 || l.Rel == 0 {
		return l.Abs.String()
	}
	return strconv.FormatFloat(l.Rel*100, 'g', -1, 64) + "%"
}

// exceeded reports whether r is slower than its base by more than l.
// Only a row that is slower beyond the noise rule can be; a relative limit
// applies to a phase from FailFloor up, and to the job whatever its length.
func (l Limit) exceeded(r *Row, job bool) bool {
	if r.Status != StatusSlower {
		return false
	}
	b, _ := r.Base.Get(Duration)
	c, _ := r.Cur.Get(Duration)
	if l.Abs > 0 {
		return c-b > l.Abs.Seconds()
	}
	if !job && b < FailFloor.Seconds() {
		return false
	}
	return c > b*(1+l.Rel)
}

// SlowerThan returns the rows that are slower than their base by more than
// l: the job's first when it is, then the phases, in order. New and gone
// phases never are (a new phase's time is in the job's).
func (d *Diff) SlowerThan(l Limit) []*Row {
	var out []*Row
	if d.HasJob && l.exceeded(&d.Job, true) {
		out = append(out, &d.Job)
	}
	for i := range d.Phases {
		if l.exceeded(&d.Phases[i], false) {
			out = append(out, &d.Phases[i])
		}
	}
	return out
}
