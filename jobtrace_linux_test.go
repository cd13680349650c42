package jobtrace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace"
	"github.com/jobtrace/jobtrace/hostmetrics"
)

// A Task leaves the process as it is: not a child subreaper, whose orphans
// would be the worker's to reap long after the task. (Nothing else in this
// package's tests makes it one.)
func TestNotASubreaper(t *testing.T) {
	task, err := jobtrace.Start(context.Background(), jobtrace.WithOut(t.TempDir()), jobtrace.WithInterval(time.Hour), jobtrace.WithLog(&strings.Builder{}))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := hostmetrics.IsSubreaper()
	if _, err := task.Stop(context.Background(), jobtrace.Success); err != nil {
		t.Fatal(err)
	}
	if err != nil || sub {
		t.Errorf("the process is a child subreaper (%v, %v)", sub, err)
	}
}
