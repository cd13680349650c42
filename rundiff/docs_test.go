package rundiff

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/insight/verdict"
)

// docs/diff.md says the noise rule and the bounds as the code has them.
func TestDocsSayTheRules(t *testing.T) {
	data, err := os.ReadFile("../docs/diff.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	unit := map[Figure]func(float64) string{
		Duration:   func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + " s" },
		CPUTime:    func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + " s" },
		CPUsBusy:   func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + " CPU" },
		MemoryPeak: func(v float64) string { return strconv.FormatFloat(v/MiB, 'g', -1, 64) + " MiB" },
		DiskIO:     func(v float64) string { return strconv.FormatFloat(v/MiB, 'g', -1, 64) + " MiB" },
	}
	for _, f := range Compared() {
		n := NoiseOf(f)
		row := fmt.Sprintf("| %s | %s | %s %% |", f, unit[f](n.Abs), strconv.FormatFloat(n.Rel*100, 'g', -1, 64))
		if !strings.Contains(doc, row) {
			t.Errorf("docs/diff.md has no row %q", row)
		}
	}
	for _, want := range []string{
		fmt.Sprintf("at most %d phases (`MaxListed`)", MaxListed),
		fmt.Sprintf("at least\n  %v (`FailFloor`)", strings.TrimSuffix(FailFloor.String(), "s")+" s"),
		fmt.Sprintf("at least %.0f %% of the machine's CPUs (`NeighbourBusy`", NeighbourBusy*100),
		fmt.Sprintf("at least %.0f points more than on the other side (`NeighbourRise`)", NeighbourRise*100),
		fmt.Sprintf("at least %.0f %% of the time (`verdict.CPUStallShare`, the verdict's)", verdict.CPUStallShare*100),
		fmt.Sprintf("at least %.0f %% of the time (`verdict.IOStallShare`)", verdict.IOStallShare*100),
		"at least half (`WorkShare`)",
		fmt.Sprintf("(at most %d levels)", MaxDepth),
		fmt.Sprintf("cut at %d characters; a cause at %d", maxTextName, maxTextReason),
		fmt.Sprintf("In Markdown a name is cut at %d characters and a cause at %d (a\ndirectory's name at %d)", maxMarkdownName, maxMarkdownReason, maxMarkdownLabel),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/diff.md does not say %q", want)
		}
	}
	if WorkShare != 0.5 {
		t.Errorf("WorkShare %v: docs/diff.md says half", WorkShare)
	}
}
