package githubjob

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Environment variables the runner sets, read by FromEnv
// (https://docs.github.com/en/actions/reference/variables-reference).
const (
	EnvAPIURL     = "GITHUB_API_URL"
	EnvRepository = "GITHUB_REPOSITORY"
	EnvRunID      = "GITHUB_RUN_ID"
	EnvAttempt    = "GITHUB_RUN_ATTEMPT"
	EnvRunnerName = "RUNNER_NAME"
	EnvJob        = "GITHUB_JOB"
)

// Settings say where the job is.
type Settings struct {
	// Token is the job's token (secrets.GITHUB_TOKEN, github.token), sent
	// as a bearer token; it needs the actions: read permission.
	Token string
	// APIURL is the API's root: https://api.github.com, or a GitHub
	// Enterprise Server's https://HOST/api/v3.
	APIURL string
	// Repository is owner/name.
	Repository string
	// RunID and Attempt name the workflow run's attempt.
	RunID, Attempt string
	// RunnerName is the name of the runner the job runs on.
	RunnerName string
	// JobName is the job's name, or its id in the workflow (GITHUB_JOB),
	// when the runner does not tell the job (see Pick).
	JobName string
	// Client makes the requests; http.DefaultClient when nil.
	Client *http.Client
}

// ErrSettings is wrapped by the error of a lookup that lacks a setting.
var ErrSettings = errors.New("githubjob: settings")

// FromEnv reads the settings from the variables the runner sets, through
// getenv; token is the job's token.
func FromEnv(getenv func(string) string, token string) Settings {
	return Settings{
		Token: token, APIURL: getenv(EnvAPIURL), Repository: getenv(EnvRepository),
		RunID: getenv(EnvRunID), Attempt: getenv(EnvAttempt),
		RunnerName: getenv(EnvRunnerName), JobName: getenv(EnvJob),
	}
}

// check returns what is missing, as one error.
func (s *Settings) check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"the job's token (the action's github-token input, or GITHUB_TOKEN)", s.Token},
		{EnvAPIURL, s.APIURL}, {EnvRepository, s.Repository}, {EnvRunID, s.RunID}, {EnvAttempt, s.Attempt},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if s.RunnerName == "" && s.JobName == "" {
		missing = append(missing, EnvRunnerName+" or "+EnvJob)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s", ErrSettings, strings.Join(missing, ", "))
	}
	if _, err := strconv.ParseUint(s.RunID, 10, 64); err != nil {
		return fmt.Errorf("%w: %s=%q is not a run id", ErrSettings, EnvRunID, s.RunID)
	}
	if _, err := strconv.ParseUint(s.Attempt, 10, 64); err != nil {
		return fmt.Errorf("%w: %s=%q is not an attempt number", ErrSettings, EnvAttempt, s.Attempt)
	}
	if owner, name, ok := strings.Cut(s.Repository, "/"); !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%w: %s=%q is not owner/name", ErrSettings, EnvRepository, s.Repository)
	}
	return nil
}
