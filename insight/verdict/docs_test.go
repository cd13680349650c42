package verdict

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/internal/attrdoc"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// Every attribute is documented in docs/attributes.md.
func TestAttributesDocumented(t *testing.T) { attrdoc.Check(t, AttributeKeys()) }

// Every kind and threshold is in docs/insight.md, with its value.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "insight.md"))
	if err != nil {
		t.Fatal(err)
	}
	insight := string(data)
	for _, k := range Kinds() {
		if !strings.Contains(insight, "`"+string(k)+"`") {
			t.Errorf("docs/insight.md does not name %s", k)
		}
	}
	// Each threshold with its value, as the table gives it.
	for name, value := range map[string]string{
		"MinDuration":      figure.Duration(MinDuration),
		"MemoryStallShare": percent(MemoryStallShare),
		"StealShare":       percent(StealShare),
		"CPUStallShare":    percent(CPUStallShare),
		"BusyMachine":      percent(BusyMachine),
		"NeighbourShare":   percent(NeighbourShare),
		"MinActiveCPUs":    strconv.FormatFloat(MinActiveCPUs, 'f', -1, 64),
		"CPUBoundShare":    percent(CPUBoundShare),
		"ParallelCPUs":     strconv.FormatFloat(ParallelCPUs, 'f', -1, 64),
		"SingleThreadCPUs": strconv.FormatFloat(SingleThreadCPUs, 'f', -1, 64),
		"IOStallShare":     percent(IOStallShare),
		"MinIOBytes":       bytes(MinIOBytes),
	} {
		if want := "`" + name + "` = " + value; !strings.Contains(insight, want) {
			t.Errorf("docs/insight.md does not say %s", want)
		}
	}
}
