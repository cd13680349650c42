package figure

import (
	"encoding/json"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DurationJS writes what Duration does, at the boundaries of every band
// and for figures spread from 1 ns to 92 days; run by node when the
// machine has it.
func TestDurationJS(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node to run the script with")
	}
	var ds []time.Duration
	for _, base := range []time.Duration{0, 999, 1000, 9995, 999_500, 999_949_999, 59_950 * time.Millisecond, time.Hour - time.Second/2, time.Hour + 30*time.Second} {
		for _, off := range []time.Duration{-2, -1, 0, 1, 2} {
			ds = append(ds, base+off)
		}
	}
	for x := 0.0; x < 15.9; x += 0.037 {
		ds = append(ds, time.Duration(math.Pow(10, x)))
	}
	ns := make([]string, len(ds))
	for i, d := range ds {
		ns[i] = strconv.FormatInt(int64(d), 10)
	}
	script := DurationJS + "\nconsole.log(JSON.stringify([" + strings.Join(ns, ",") + "].map(function (n) { return dur(n / 1e6); })));\n"
	out, err := exec.Command(node, "-e", script).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(ds) {
		t.Fatalf("node wrote %q (%v)", out, err)
	}
	for i, d := range ds {
		if want := Duration(d); got[i] != want {
			t.Errorf("dur(%d ns) = %q, Duration writes %q", int64(d), got[i], want)
		}
	}
}
