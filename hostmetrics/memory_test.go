package hostmetrics

import "testing"

// Where the machine tells what memory is available, the source takes what
// is in use as the rest of its total: Used + Available, the machine's
// memory as the model takes it from resource-usage.csv's two columns, is
// Memory.Total, the semantic conventions' total that
// system.memory.utilization divides by, so the two are one figure.
func TestUsedAndAvailableAreTheTotal(t *testing.T) {
	src, err := NewSource(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var s Sample
	_ = src.Read(&s) // the job's figures are absent: no job
	m := &s.Host.Memory
	if !s.Host.HasMemory || m.Available == 0 {
		t.Skip("this system does not say what memory is available")
	}
	if m.Used+m.Available != m.Total {
		t.Errorf("used %d + available %d = %d, the total %d", m.Used, m.Available, m.Used+m.Available, m.Total)
	}
}
