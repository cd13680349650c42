package runmodel

// Slim drops from the run what only a page or a profile shows, and keeps
// what a comparison of runs reads (rundiff.Compare): each span's name,
// times, place in the tree, failure, usage and verdict, read from its
// attributes when the model was made. The usage rows, the events, the
// resource, the status texts and the attributes go. A diff against many
// base runs reads them one by one and slims each before the next, so that
// what it holds grows with their figures, not with whatever their
// artifacts carry (an attribute of tens of megabytes in each of 50 base
// runs).
func (r *Run) Slim() {
	r.Rows, r.Resource = nil, nil
	slim(&r.Job)
	for i := range r.Phases {
		slim(&r.Phases[i])
	}
}

func slim(s *Span) {
	s.Attributes, s.Events, s.Status, s.resource = nil, nil, "", nil
}
