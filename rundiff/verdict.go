package rundiff

import (
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

// verdictOf is the verdict recorded on a span (verdict.FromAttributes: read
// back, never judged again); the zero Verdict when it has none.
func verdictOf(s *runmodel.Span) verdict.Verdict {
	v, _ := verdict.FromAttributes(s.Attributes)
	return v
}
