package githubjob

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Job is a job of a workflow run, as the API gives it.
type Job struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`     // queued, in_progress, completed, waiting, ...
	Conclusion  string    `json:"conclusion"` // once completed: success, failure, cancelled, skipped, ...
	StartedAt   time.Time `json:"started_at"`
	RunnerName  string    `json:"runner_name"`
	HTMLURL     string    `json:"html_url"`
	WorkflowRun int64     `json:"run_id"`
	Steps       []Step    `json:"steps"`
}

// Step is a step of a job. Its times are given to the second; a step that
// has not started or ended has no time (zero).
type Step struct {
	Name        string    `json:"name"`
	Number      int       `json:"number"`
	Status      string    `json:"status"`     // queued, in_progress, completed
	Conclusion  string    `json:"conclusion"` // success, failure, cancelled, skipped; "" before completed
	StartedAt   time.Time `json:"started_at"`
	CompletedAt time.Time `json:"completed_at"`
}

// page is one page of the listing.
type page struct {
	TotalCount int   `json:"total_count"`
	Jobs       []Job `json:"jobs"`
}

// ErrNoJob is wrapped by Pick's error when no job, or more than one, fits.
var ErrNoJob = errors.New("githubjob: the running job is not found")

// Pick returns the job running here among jobs:
//
//  1. the one job in progress on runner runnerName: a runner runs one job
//     at a time, and at the end of a job (where jobtrace asks) it is still
//     in progress. This finds the job whatever its name, which the API
//     gives as the workflow shows it: the job's name: (or its id), with a
//     matrix job's values after it, "build (ubuntu-latest, 1.22)";
//  2. otherwise (no runner name, or a runner that several jobs in progress
//     claim, which a re-used self-hosted runner's name may), the one job in
//     progress among those whose name is jobName, or jobName followed by a
//     matrix's values " (...)";
//  3. otherwise none: the error says which rule found none or several.
func Pick(jobs []Job, runnerName, jobName string) (Job, error) {
	var running []Job
	for _, j := range jobs {
		if j.Status == "in_progress" {
			running = append(running, j)
		}
	}
	if runnerName != "" {
		var onRunner []Job
		for _, j := range running {
			if j.RunnerName == runnerName {
				onRunner = append(onRunner, j)
			}
		}
		if len(onRunner) == 1 {
			return onRunner[0], nil
		}
		if len(onRunner) > 1 {
			running = onRunner
		}
	}
	var named []Job
	if jobName != "" {
		for _, j := range running {
			if j.Name == jobName || strings.HasPrefix(j.Name, jobName+" (") && strings.HasSuffix(j.Name, ")") {
				named = append(named, j)
			}
		}
	}
	if len(named) == 1 {
		return named[0], nil
	}
	return Job{}, fmt.Errorf("%w among the %d jobs of the run attempt (%d in progress): %d on runner %q, %d named %q",
		ErrNoJob, len(jobs), len(running), countRunner(running, runnerName), runnerName, len(named), jobName)
}

func countRunner(jobs []Job, runner string) int {
	n := 0
	for _, j := range jobs {
		if runner != "" && j.RunnerName == runner {
			n++
		}
	}
	return n
}
