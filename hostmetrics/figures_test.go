package hostmetrics

import (
	"strings"
	"testing"
)

func TestFigureString(t *testing.T) {
	if got := figNet.String(); got != "network IO" {
		t.Errorf("figNet is %q", got)
	}
	if got := (figCPU | figLoad).String(); got != "CPU times, load average" {
		t.Errorf("two figures are %q", got)
	}
	for _, n := range figureNames {
		if n.name == "" || strings.Contains(n.name, ",") {
			t.Errorf("figure %d named %q", n.f, n.name)
		}
	}
}
