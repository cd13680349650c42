package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jobtrace/jobtrace/agent/githubjob"
	"github.com/jobtrace/jobtrace/spans/socket"
)

// EnvGitHubToken is where `jobtrace stop --github-steps` reads the job's
// token: the GitHub Action sets it from its github-token input. It is read
// for that request only (docs/github-actions.md).
const EnvGitHubToken = "GITHUB_TOKEN"

// maxNamed bounds the steps left out that githubSteps names.
const maxNamed = 3

// githubSteps adds the completed steps of the GitHub Actions job that runs
// here as phases of the agent's job, through the agent's socket at sock
// (githubjob.Phases), and returns the job's result as its steps tell it
// (githubjob.Result). When the steps cannot be read or sent, it says so in
// one warning and returns "": the job goes on without them.
func (c *cli) githubSteps(ctx context.Context, sock string, warn func(string), say func(string)) string {
	job, err := githubjob.Find(ctx, githubjob.FromEnv(c.getenv, c.getenv(EnvGitHubToken)))
	if err != nil {
		warn(fmt.Sprintf("the job's steps are not traced: %v", err))
		return ""
	}
	msgs, left := githubjob.Phases(job)
	conn, err := socket.Dial(sock)
	if err != nil {
		warn(fmt.Sprintf("the job's steps are not traced: the agent: %v", err))
		return ""
	}
	defer conn.Close()
	added := 0
	var refused []string
	for _, m := range msgs {
		r, err := conn.Request(m)
		if err != nil {
			warn(fmt.Sprintf("the job's steps are traced up to %q: the agent: %v", m.Name, err))
			return githubjob.Result(job)
		}
		if r.OK {
			added++
		} else {
			refused = append(refused, fmt.Sprintf("%q (%s)", m.Name, r.Error))
		}
	}
	line := fmt.Sprintf("%d steps of job %q traced", added, job.Name)
	if left > 0 {
		line += fmt.Sprintf("; %d not run or not finished", left)
	}
	if n := len(refused); n > 0 {
		if n > maxNamed {
			refused = append(refused[:maxNamed], fmt.Sprintf("%d more", n-maxNamed))
		}
		line += fmt.Sprintf("; %d left out: %s", n, strings.Join(refused, ", "))
	}
	say(line)
	return githubjob.Result(job)
}
