package hostmetrics

import "github.com/jobtrace/jobtrace/hostmetrics/illumosproc"

// IllumosSamplesForTest returns a function that fills a Sample as the
// illumos source does: the host from the kstat values of illumosInputs, the
// job's tree (pid 200) from the illumos proc tree at procRoot. The CPU
// counters grow by a second per CPU and mode at each call.
func IllumosSamplesForTest(procRoot string) func(s *Sample) error {
	r := illumosproc.NewReader(procRoot)
	var tt illumosTreeTotals
	var calls uint64
	return func(s *Sample) error {
		k := illumosInputs()
		for _, c := range k.CPUs {
			for i := range c.Values {
				c.Values[i].Uint += calls * 1e9
			}
		}
		calls++
		if err := illumosHost(k, &s.Host); err != nil {
			return err
		}
		u, err := r.Sample([]int{200}, s.Time)
		s.Job = Job{HasTree: true, Tree: tt.tree(u, ExitUsage{}, 1, s.Time)}
		return err
	}
}
