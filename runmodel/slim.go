package runmodel

import "github.com/jobtrace/jobtrace/insight/verdict"

// Slim drops from the run what only a page or a profile shows, and keeps
// what a comparison of runs reads (rundiff.Compare): each span's name,
// times, place in the tree, failure and usage, and its verdict, read back
// bounded (verdict.FromAttributes) in place of its attributes. The usage
// rows, the events, the resource, the status texts and the other
// attributes go. A diff against many base runs reads them one by one and
// slims each before the next, so that what it holds grows with their
// figures, not with whatever their artifacts carry (an attribute of tens
// of megabytes in each of 50 base runs).
func (r *Run) Slim() {
	r.Rows, r.Resource = nil, nil
	slim(&r.Job)
	for i := range r.Phases {
		slim(&r.Phases[i])
	}
}

func slim(s *Span) {
	v, _ := verdict.FromAttributes(s.Attributes)
	s.Attributes = v.Attributes()
	s.Events, s.Status, s.resource = nil, "", nil
}
