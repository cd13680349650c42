package session

import "testing"

func TestParseCgroupName(t *testing.T) {
	for name, want := range map[string]int{
		"jobtrace-123": 123, "jobtrace-0": 0, "jobtrace-": 0, "jobtrace-12a": 0,
		"jobtrace-test-1-2": 0, "jobtrace-1-2": 0, "other-12": 0,
	} {
		pid, ok := parseCgroupName(name)
		if ok != (want > 0) || pid != want {
			t.Errorf("%q: %d, %v", name, pid, ok)
		}
	}
}
