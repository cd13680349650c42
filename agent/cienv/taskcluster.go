package cienv

import (
	"strings"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Taskcluster documents its standard variables in its manual
// ("Standard Environment Variables", ui/docs/manual/design/env-vars.mdx).
// Generic Worker and Docker Worker set TASK_ID and RUN_ID; Generic Worker
// also sets TASK_GROUP_ID; workers set TASKCLUSTER_ROOT_URL and, on cloud
// instances, TASKCLUSTER_INSTANCE_TYPE. Task names live in the task
// definition, not in the environment.

func detectTaskcluster(getenv func(string) string) bool {
	return getenv("TASK_ID") != "" && getenv("TASKCLUSTER_ROOT_URL") != ""
}

func readTaskcluster(getenv func(string) string, info *Info) {
	root := strings.TrimRight(getenv("TASKCLUSTER_ROOT_URL"), "/")
	taskID := getenv("TASK_ID")
	runID := getenv("RUN_ID")
	group := getenv("TASK_GROUP_ID")
	info.HostType = getenv("TASKCLUSTER_INSTANCE_TYPE")

	var a attrs
	a.add(semconv.CICDPipelineRunIDKey, group)
	if group != "" {
		a.add(semconv.CICDPipelineRunURLFullKey, root+"/tasks/groups/"+group)
	}
	a.add(semconv.CICDPipelineTaskRunIDKey, taskID)
	if runID != "" {
		a.add(semconv.CICDPipelineTaskRunURLFullKey, root+"/tasks/"+taskID+"/runs/"+runID)
	} else {
		a.add(semconv.CICDPipelineTaskRunURLFullKey, root+"/tasks/"+taskID)
	}
	info.Attrs = a
}
