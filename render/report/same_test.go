package report

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

var updateSums = flag.Bool("update-sums", false, "rewrite testdata/sums.txt from the reports rendered now")

// sumsFile holds the SHA-256 of report.html and usage.svg for each of
// variedData's runs, as the report rendered them when it was written.
const sumsFile = "testdata/sums.txt"

// variedData is a run made from seed: phases at every depth, failed or
// not, with or without verdicts, usage figures and events with attributes;
// rows with any of the columns, values from thousandths to petabytes (the
// odd NaN and infinity in the spans' figures); a job from milliseconds to
// days long.
func variedData(seed uint64) *Data {
	r := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 1, 2, 3, 4, 5, int(r.Int64N(1e9)), time.UTC)
	spans := []time.Duration{80 * time.Millisecond, 2 * time.Second, 45 * time.Second, 20 * time.Minute, 5 * time.Hour, 50 * time.Hour}
	long := spans[seed%uint64(len(spans))]
	at := func() time.Time { return start.Add(time.Duration(r.Int64N(int64(long) + 1))) }
	figure := func(odd bool) float64 {
		switch r.IntN(20) {
		case 0:
			return 0
		case 1:
			if odd {
				return math.NaN()
			}
		case 2:
			if odd {
				return math.Inf(1)
			}
		}
		return math.Pow(10, r.Float64()*18-3)
	}
	opt := func() Opt {
		if r.IntN(4) == 0 {
			return Opt{}
		}
		return Opt{figure(true), true}
	}
	use := func() Usage {
		return Usage{CPUUser: opt(), CPUSystem: opt(), CPUAvg: opt(), CPUPeak: opt(), MemoryPeak: opt(), DiskRead: opt(), DiskWrite: opt()}
	}
	names := []string{"build", "test", "<b>x</b>", "ünïcødé ✓", "a very long phase name that goes on and on past the column", "q\"'&", "ctl\x01\x7f", "bad\xe2\x82", "\xff\xfe", "\uFFFE", ""}
	pick := func() string { return names[r.IntN(len(names))] }
	events := func() []runmodel.Event {
		var evs []runmodel.Event
		for range r.IntN(3) {
			e := runmodel.Event{Name: pick(), Time: at()}
			if r.IntN(5) == 0 {
				e.Time = time.Time{}
			}
			for i := range r.IntN(4) {
				e.Attributes = append(e.Attributes, attribute.String("k"+strconv.Itoa(i), pick()), attribute.Float64("f", figure(true)))
			}
			evs = append(evs, e)
		}
		return evs
	}
	verdicts := []verdict.Verdict{{}, {Kind: verdict.CPUBound, Reason: "kept 1.9 of 2 CPUs busy <b>"}, {Kind: verdict.Starved, Reason: "waited"}}
	d := &Data{Job: Job{Name: pick(), Result: []string{"", "success", "failure"}[r.IntN(3)], ExitCode: "3",
		Start: start, End: start.Add(long), Host: pick(), Service: pick(), Usage: use(),
		Verdict: verdicts[r.IntN(len(verdicts))], Events: events()}}
	if seed%7 == 3 {
		d.Job.Start, d.Job.End = time.Time{}, time.Time{}
	}
	d.Skipped = int(seed % 5 / 4)
	for range r.IntN(30) {
		s := at()
		d.Phases = append(d.Phases, Phase{Name: pick(), Depth: r.IntN(12), Start: s, End: s.Add(time.Duration(r.Int64N(int64(long)/4 + 1))),
			Result: []string{"", "success", "failure", "<x>"}[r.IntN(4)], Failed: r.IntN(3) == 0, Usage: use(),
			Verdict: verdicts[r.IntN(len(verdicts))], Events: events()})
	}
	rows := []int{0, 1, 3, 28, 1500}[seed%5]
	cols := r.Uint64()
	for i := range rows {
		row := runmodel.Row{Time: start.Add(long * time.Duration(i) / time.Duration(max(rows-1, 1)))}
		for c := range runmodel.HostIOStall + 1 {
			if cols>>c&1 == 1 && r.IntN(10) > 0 {
				row.Set(c, figure(false))
			}
		}
		d.Rows = append(d.Rows, row)
	}
	d.fillTimes()
	return d
}

// TestSameBytes checks that the report of each of variedData's runs is
// byte for byte what it was (testdata/sums.txt), beside TestGolden's real
// run.
func TestSameBytes(t *testing.T) {
	var got []string
	datas := []*Data{hostileData(), {}}
	for seed := range uint64(60) {
		datas = append(datas, variedData(seed))
	}
	for i, d := range datas {
		h, s := render(t, d)
		hs, ss := sha256.Sum256([]byte(h)), sha256.Sum256([]byte(s))
		got = append(got, strconv.Itoa(i)+" "+hex.EncodeToString(hs[:])+" "+hex.EncodeToString(ss[:]))
	}
	if *updateSums {
		if err := os.WriteFile(sumsFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(filepath.FromSlash(sumsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(want) != len(got) {
		t.Fatalf("%s has %d lines, want %d", sumsFile, len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("run %d: report differs from what it was (%s)", i, sumsFile)
		}
	}
}
