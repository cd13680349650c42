package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/spooltest"
)

// The GitLab CI component and the Buildkite plugin in ci/, run the way
// GitLab and Buildkite run them: their scripts in the shells and processes
// those systems use, in a temporary project, with the built binary.

const (
	gitlabTemplate  = "../../ci/gitlab/templates/jobtrace/template.yml"
	buildkitePlugin = "../../ci/buildkite/jobtrace"

	// scriptWaitDelay bounds how long a CI script's output pipes may stay
	// open after the script has exited: a background agent that kept them
	// would hang the CI system's step (GitLab and Buildkite read a step's
	// output until its end).
	scriptWaitDelay = 10 * time.Second
)

// ciScript runs script with shell in dir with env, as a CI system runs one
// of its steps, and returns its exit status and output.
func ciScript(t *testing.T, dir string, env []string, shell string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(shell, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = scriptWaitDelay
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrWaitDelay):
		t.Fatalf("%s: the output stayed open after the script ended (a background process holds it)\n%s", shell, out.String())
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String()
}

// ciEnv is the environment a CI system gives a job here: PATH with the
// built binary's directory first when withBin, a private home, TMPDIR and
// state directory under root, and vars.
func ciEnv(t *testing.T, root string, withBin bool, vars ...string) []string {
	t.Helper()
	path := os.Getenv("PATH")
	if withBin {
		path = filepath.Dir(bin) + ":" + path
	}
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	return append([]string{"PATH=" + path, "HOME=" + root, "TMPDIR=" + tmp, EnvStateDir + "=" + filepath.Join(root, "state")}, vars...)
}

// checkJobTrace checks the spool at path: one trace, the job's span named
// job with the result want, stopped, and each step a child of it with its
// result.
func checkJobTrace(t *testing.T, path, job, want string, steps map[string]string) {
	t.Helper()
	spans := spooltest.Read(t, path)
	js, ok := spans[job]
	if !ok {
		t.Fatalf("no span %q among %v", job, slices.Sorted(maps.Keys(spans)))
	}
	if js.Parent != "" {
		t.Errorf("the job's span has a parent %q", js.Parent)
	}
	if got := js.Attrs["cicd.pipeline.task.run.result"]; got != want {
		t.Errorf("the job's result is %v, want %s", got, want)
	}
	if got := js.Attrs["jobtrace.job.stopped"]; got != true {
		t.Errorf("jobtrace.job.stopped = %v, want true (ended by stop)", got)
	}
	for name, s := range spans {
		if s.TraceID != js.TraceID {
			t.Errorf("span %q is in trace %s, the job in %s", name, s.TraceID, js.TraceID)
		}
	}
	for name, res := range steps {
		s, ok := spans[name]
		switch {
		case !ok:
			t.Errorf("no span for the step %q", name)
		case s.Parent != job:
			t.Errorf("step %q has the parent %q, want the job %q", name, s.Parent, job)
		case s.Attrs["cicd.pipeline.task.run.result"] != res:
			t.Errorf("step %q has the result %v, want %s", name, s.Attrs["cicd.pipeline.task.run.result"], res)
		}
	}
}

// checkArtifacts checks that dir holds every artifact of a stopped job.
func checkArtifacts(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{spool.TracesFile, "resource-usage.csv", "report.html", "usage.svg", "profile.json"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("artifact %s: %v", name, err)
		}
	}
}

// gitlabInput is an input of a component's spec.
type gitlabInput struct {
	Default *string `yaml:"default"`
	Regex   string  `yaml:"regex"`
}

// gitlabJob is what these tests read of a GitLab job.
type gitlabJob struct {
	Extends      string   `yaml:"extends"`
	BeforeScript []string `yaml:"before_script"`
	Script       []string `yaml:"script"`
	AfterScript  []string `yaml:"after_script"`
	Artifacts    struct {
		When     string   `yaml:"when"`
		ExpireIn string   `yaml:"expire_in"`
		Paths    []string `yaml:"paths"`
	} `yaml:"artifacts"`
}

var gitlabInputRef = regexp.MustCompile(`\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]`)

// gitlabComponent reads the component's template and interpolates its
// inputs as GitLab does when a pipeline includes it: each input given, else
// its default, must match the input's regex; an input used but not
// declared, or declared but not used, fails the test.
func gitlabComponent(t *testing.T, given map[string]string) map[string]gitlabJob {
	t.Helper()
	raw, err := os.ReadFile(gitlabTemplate)
	if err != nil {
		t.Fatal(err)
	}
	header, body, ok := strings.Cut(string(raw), "\n---\n")
	if !ok {
		t.Fatal("the template has no spec header ended by ---")
	}
	var spec struct {
		Spec struct {
			Inputs map[string]gitlabInput `yaml:"inputs"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(header), &spec); err != nil {
		t.Fatal(err)
	}
	for name := range given {
		if _, ok := spec.Spec.Inputs[name]; !ok {
			t.Fatalf("input %q is not declared", name)
		}
	}
	used := map[string]bool{}
	body = gitlabInputRef.ReplaceAllStringFunc(body, func(ref string) string {
		name := gitlabInputRef.FindStringSubmatch(ref)[1]
		in, ok := spec.Spec.Inputs[name]
		if !ok {
			t.Fatalf("input %q is used but not declared", name)
		}
		used[name] = true
		v, ok := given[name]
		if !ok {
			if in.Default == nil {
				t.Fatalf("input %q has no default and is not given", name)
			}
			v = *in.Default
		}
		if in.Regex != "" && !regexp.MustCompile(in.Regex).MatchString(v) {
			t.Fatalf("input %q = %q does not match its regex %s", name, v, in.Regex)
		}
		return v
	})
	for name := range spec.Spec.Inputs {
		if !used[name] {
			t.Errorf("input %q is declared but not used", name)
		}
	}
	jobs := map[string]gitlabJob{}
	if err := yaml.Unmarshal([]byte(body), &jobs); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// gitlabPipeline resolves a job of a pipeline that includes the component
// with inputs, as GitLab does: a !reference [job, key] in a script is
// replaced by that list, flattened; a script or artifacts the job does not
// set comes from the job it extends.
func gitlabPipeline(t *testing.T, pipeline, job string) gitlabJob {
	t.Helper()
	var p map[string]yaml.Node
	if err := yaml.Unmarshal([]byte(pipeline), &p); err != nil {
		t.Fatal(err)
	}
	var include []struct {
		Component string            `yaml:"component"`
		Inputs    map[string]string `yaml:"inputs"`
	}
	inc := p["include"]
	if err := inc.Decode(&include); err != nil || len(include) != 1 {
		t.Fatalf("include: %v (%d)", err, len(include))
	}
	component := gitlabComponent(t, include[0].Inputs)
	var raw struct {
		Extends                           string
		BeforeScript, Script, AfterScript yaml.Node
		Artifacts                         yaml.Node
	}
	for _, kv := range pairs(p[job].Content) {
		switch kv[0].Value {
		case "extends":
			raw.Extends = kv[1].Value
		case "before_script":
			raw.BeforeScript = *kv[1]
		case "script":
			raw.Script = *kv[1]
		case "after_script":
			raw.AfterScript = *kv[1]
		case "artifacts":
			raw.Artifacts = *kv[1]
		}
	}
	lines := func(n yaml.Node) []string {
		var out []string
		for _, item := range n.Content {
			if item.Tag != "!reference" {
				out = append(out, item.Value)
				continue
			}
			if len(item.Content) != 2 {
				t.Fatalf("!reference %v: want [job, key]", item.Content)
			}
			ref, ok := component[item.Content[0].Value]
			key := item.Content[1].Value
			if !ok || (key != "before_script" && key != "after_script") {
				t.Fatalf("!reference [%s, %s]: the component has no such list", item.Content[0].Value, key)
			}
			out = append(out, map[string][]string{"before_script": ref.BeforeScript, "after_script": ref.AfterScript}[key]...)
		}
		return out
	}
	hidden := component[raw.Extends]
	j := gitlabJob{Extends: raw.Extends, BeforeScript: hidden.BeforeScript, Script: lines(raw.Script), AfterScript: hidden.AfterScript, Artifacts: hidden.Artifacts}
	if raw.BeforeScript.Kind != 0 {
		j.BeforeScript = lines(raw.BeforeScript)
	}
	if raw.AfterScript.Kind != 0 {
		j.AfterScript = lines(raw.AfterScript)
	}
	if raw.Artifacts.Kind != 0 {
		if err := raw.Artifacts.Decode(&j.Artifacts); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// pairs returns a mapping node's content as key, value pairs.
func pairs(content []*yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(content); i += 2 {
		out = append(out, [2]*yaml.Node{content[i], content[i+1]})
	}
	return out
}

// The GitLab component run as the runner runs a job: before_script and
// script in one shell that stops at the first failing command, after_script
// in a shell of its own with CI_JOB_STATUS and the job's variables but not
// the first shell's environment, in the project directory. The job is one
// trace whose result follows CI_JOB_STATUS, its steps are children of the
// job's span, and the out directory declared as artifacts holds every
// artifact.
func TestGitLabComponent(t *testing.T) {
	const pipeline = `
include:
  - component: $CI_SERVER_FQDN/jobtrace/jobtrace/jobtrace@1.0.0
    inputs:
      out: traces/jobtrace
      %s
`
	const steps = `
  script:
    - jobtrace exec compile -- sh -c 'echo compiling'
    - jobtrace exec test -- sh -c "exit $TEST_EXIT"
`
	// The README's two ways: extends, and !reference for a job with
	// scripts and artifacts of its own.
	jobs := map[bool]string{false: "build:\n  extends: .jobtrace" + steps, true: `build:
  before_script:
    - !reference [.jobtrace, before_script]
    - echo own setup
  after_script:
    - echo own cleanup
    - !reference [.jobtrace, after_script]
  artifacts:
    when: always
    paths: [traces/jobtrace/, build/logs/]` + steps}
	cases := []struct {
		name, input, testExit, status, want, testResult string
		withBin, reference                              bool
	}{
		{"success", "", "0", "success", "success", "success", true, false},
		{"failed", "", "3", "failed", "failure", "failure", true, false},
		{"canceled", "", "0", "canceled", "cancellation", "success", true, false},
		{"unknown status", "", "0", "running", "error", "success", true, false},
		// jobtrace is not on PATH: go install puts it in the project.
		{"go install", "version: v1.2.3", "0", "success", "success", "success", false, false},
		{"!reference", "", "3", "failed", "failure", "failure", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			project := filepath.Join(root, "builds", "demo")
			fakeBin := filepath.Join(root, "fakebin")
			for _, d := range []string{project, fakeBin} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// A go that installs the binary under test where GOBIN says.
			goShim := "#!/bin/sh\n" +
				`[ "$1 $2" = "install github.com/jobtrace/jobtrace/cmd/jobtrace@v1.2.3" ] || { echo "go: unexpected $*" >&2; exit 2; }` + "\n" +
				`mkdir -p "$GOBIN" && cp "$JOBTRACE_TEST_BINARY" "$GOBIN/jobtrace"` + "\n"
			if err := os.WriteFile(filepath.Join(fakeBin, "go"), []byte(goShim), 0o755); err != nil {
				t.Fatal(err)
			}
			job := gitlabPipeline(t, fmt.Sprintf(pipeline, tc.input)+jobs[tc.reference], "build")
			env := ciEnv(t, root, tc.withBin, "GITLAB_CI=true", "CI_JOB_NAME=build", "CI_PROJECT_NAME=demo",
				"CI_PROJECT_DIR="+project, "TEST_EXIT="+tc.testExit, "JOBTRACE_TEST_BINARY="+bin)
			env[0] = "PATH=" + fakeBin + ":" + strings.TrimPrefix(env[0], "PATH=")

			script := strings.Join(append(append([]string{}, job.BeforeScript...), job.Script...), "\n")
			code, out := ciScript(t, project, env, "sh", "-e", "-c", script)
			if wantCode := map[string]int{"0": 0, "3": 3}[tc.testExit]; code != wantCode {
				t.Fatalf("before_script and script exited %d, want %d\n%s", code, wantCode, out)
			}
			if strings.Contains(out, "not started") {
				t.Fatalf("jobtrace did not start:\n%s", out)
			}
			code, out = ciScript(t, project, append(env, "CI_JOB_STATUS="+tc.status), "sh", "-e", "-c", strings.Join(job.AfterScript, "\n"))
			if code != 0 || strings.Contains(out, "stop exited") {
				t.Fatalf("after_script: exit %d\n%s", code, out)
			}
			if tc.want == "error" && !strings.Contains(out, "CI_JOB_STATUS is 'running'") {
				t.Errorf("after_script does not say why the result is error:\n%s", out)
			}
			if job.Artifacts.When != "always" || len(job.Artifacts.Paths) == 0 {
				t.Fatalf("artifacts: %+v, want when: always and the out directory first", job.Artifacts)
			}
			artifacts := filepath.Join(project, job.Artifacts.Paths[0])
			if want := filepath.Join(project, "traces", "jobtrace"); filepath.Clean(artifacts) != want {
				t.Errorf("artifacts: %s, want the out directory %s", artifacts, want)
			}
			checkArtifacts(t, artifacts)
			checkJobTrace(t, filepath.Join(artifacts, spool.TracesFile), "build", tc.want,
				map[string]string{"compile": "success", "test": tc.testResult})
		})
	}
}

// pluginHooks is the absolute path of the Buildkite plugin's hooks, which
// run in other directories.
func pluginHooks(t *testing.T) string {
	t.Helper()
	hooks, err := filepath.Abs(filepath.Join(buildkitePlugin, "hooks"))
	if err != nil {
		t.Fatal(err)
	}
	return hooks
}

// The Buildkite plugin run as the agent runs a job: the environment hook
// sourced by a shell of its own before the checkout (in another
// directory), the command in another process with the environment the hook
// exported, the pre-exit hook sourced in a third with that environment and
// BUILDKITE_COMMAND_EXIT_STATUS. The job is one trace whose result follows
// the command's exit status, its steps are children of the job's span, and
// pre-exit uploads every artifact with buildkite-agent.
func TestBuildkitePlugin(t *testing.T) {
	hooks := pluginHooks(t)
	const command = `jobtrace exec compile -- sh -c 'echo compiling' && jobtrace exec test -- sh -c "exit $TEST_EXIT"`
	cases := []struct {
		name      string
		exit      string // BUILDKITE_COMMAND_EXIT_STATUS; "" runs no command
		cancelled bool
		want      string
		steps     map[string]string
	}{
		{"success", "0", false, "success", map[string]string{"compile": "success", "test": "success"}},
		{"failed", "3", false, "failure", map[string]string{"compile": "success", "test": "failure"}},
		{"cancelled", "-1", true, "cancellation", nil},
		{"no command", "", false, "error", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			agentDir, checkout, uploads, fakeBin := filepath.Join(root, "agent"), filepath.Join(root, "builds", "demo"), filepath.Join(root, "uploads"), filepath.Join(root, "fakebin")
			for _, d := range []string{agentDir, checkout, uploads, fakeBin} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// A buildkite-agent that uploads to a directory, relative
			// paths kept, as the artifact's name keeps them.
			agentShim := "#!/bin/sh\n" +
				`[ "$1 $2" = "artifact upload" ] && [ $# = 3 ] || { echo "buildkite-agent: unexpected $*" >&2; exit 2; }` + "\n" +
				`for f in $3; do mkdir -p "$UPLOADS/${f%/*}" && cp "$f" "$UPLOADS/$f" || exit 1; done` + "\n"
			if err := os.WriteFile(filepath.Join(fakeBin, "buildkite-agent"), []byte(agentShim), 0o755); err != nil {
				t.Fatal(err)
			}
			env := ciEnv(t, root, true, "BUILDKITE=true", "BUILDKITE_JOB_ID=0190a0b2-job", "BUILDKITE_LABEL=unit tests",
				"BUILDKITE_PLUGIN_NAME=JOBTRACE", "BUILDKITE_COMMAND="+command, "TEST_EXIT="+tc.exit, "UPLOADS="+uploads)
			env[0] = "PATH=" + fakeBin + ":" + strings.TrimPrefix(env[0], "PATH=")

			dump := filepath.Join(root, "env")
			code, out := ciScript(t, agentDir, env, "bash", "-c", `. "$1" && env -0 >"$2"`, "environment", filepath.Join(hooks, "environment"), dump)
			if code != 0 || strings.Contains(out, "untraced") {
				t.Fatalf("environment hook: exit %d\n%s", code, out)
			}
			raw, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			jobEnv := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
			if !slices.ContainsFunc(jobEnv, func(kv string) bool { return strings.HasPrefix(kv, "TRACEPARENT=") }) {
				t.Fatalf("the environment hook exported no TRACEPARENT: %q", jobEnv)
			}
			if tc.exit != "" && !tc.cancelled {
				code, out = ciScript(t, checkout, jobEnv, "bash", "-c", command)
				if fmt.Sprint(code) != tc.exit {
					t.Fatalf("command exited %d, want %s\n%s", code, tc.exit, out)
				}
			}
			exitEnv := append([]string{}, jobEnv...)
			if tc.exit != "" {
				exitEnv = append(exitEnv, "BUILDKITE_COMMAND_EXIT_STATUS="+tc.exit)
			}
			if tc.cancelled {
				exitEnv = append(exitEnv, "BUILDKITE_JOB_CANCELLED=true")
			}
			code, out = ciScript(t, checkout, exitEnv, "bash", "-c", `. "$1"`, "pre-exit", filepath.Join(hooks, "pre-exit"))
			if code != 0 || strings.Contains(out, "stop exited") || strings.Contains(out, "upload of") {
				t.Fatalf("pre-exit hook: exit %d\n%s", code, out)
			}
			uploaded := filepath.Join(uploads, "jobtrace-out")
			checkArtifacts(t, uploaded)
			checkJobTrace(t, filepath.Join(uploaded, spool.TracesFile), "unit tests", tc.want, tc.steps)
			if _, err := os.Stat(filepath.Join(root, "tmp", "jobtrace-0190a0b2-job")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the plugin's directory is left after the upload: %v", err)
			}
		})
	}
}

// Where jobtrace cannot start (here: no binary where it is said to be),
// the job runs and ends as it would without it, with its own exit status:
// GitLab's scripts and Buildkite's hooks say so and exit 0.
func TestCIScriptsWithoutJobtrace(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "no", "jobtrace")
	t.Run("gitlab", func(t *testing.T) {
		job := gitlabComponent(t, map[string]string{"binary": missing})[".jobtrace"]
		env := ciEnv(t, root, false, "GITLAB_CI=true", "CI_PROJECT_DIR="+root)
		script := strings.Join(append(job.BeforeScript, "echo the job ran", "exit 4"), "\n")
		code, out := ciScript(t, root, env, "sh", "-e", "-c", script)
		if code != 4 || !strings.Contains(out, "the job ran") || !strings.Contains(out, "not started") {
			t.Errorf("before_script and script: exit %d, want the job's 4, and a word that jobtrace did not start\n%s", code, out)
		}
		code, out = ciScript(t, root, append(env, "CI_JOB_STATUS=failed"), "sh", "-e", "-c", strings.Join(job.AfterScript, "\n"))
		if code != 0 || !strings.Contains(out, "stop exited") {
			t.Errorf("after_script: exit %d, want 0 and a word that stop failed\n%s", code, out)
		}
	})
	t.Run("buildkite", func(t *testing.T) {
		hooks := pluginHooks(t)
		env := ciEnv(t, root, false, "BUILDKITE=true", "BUILDKITE_JOB_ID=job", "BUILDKITE_PLUGIN_JOBTRACE_BINARY="+missing)
		code, out := ciScript(t, root, env, "bash", "-c", `. "$1"`, "environment", filepath.Join(hooks, "environment"))
		if code != 0 || !strings.Contains(out, "untraced") {
			t.Errorf("environment hook: exit %d, want 0 and a word that the job runs untraced\n%s", code, out)
		}
		code, out = ciScript(t, root, append(env, "BUILDKITE_COMMAND_EXIT_STATUS=4"), "bash", "-c", `. "$1"`, "pre-exit", filepath.Join(hooks, "pre-exit"))
		if code != 0 || !strings.Contains(out, "did not start") {
			t.Errorf("pre-exit hook: exit %d, want 0 and a word that jobtrace did not start\n%s", code, out)
		}
	})
}

// plugin.yml declares exactly the options the hooks read, and every option
// is documented in the plugin's README.
func TestBuildkitePluginOptions(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(buildkitePlugin, "plugin.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		Name          string `yaml:"name"`
		Configuration struct {
			Properties           map[string]map[string]any `yaml:"properties"`
			AdditionalProperties *bool                     `yaml:"additionalProperties"`
		} `yaml:"configuration"`
	}
	if err := yaml.Unmarshal(raw, &def); err != nil {
		t.Fatal(err)
	}
	if def.Name != "jobtrace" || def.Configuration.AdditionalProperties == nil || *def.Configuration.AdditionalProperties {
		t.Errorf("plugin.yml: name %q, additionalProperties %v; want jobtrace, false", def.Name, def.Configuration.AdditionalProperties)
	}
	var declared, read []string
	for name := range def.Configuration.Properties {
		declared = append(declared, strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
	}
	files, _ := filepath.Glob(filepath.Join(buildkitePlugin, "*", "*"))
	ref := regexp.MustCompile(`BUILDKITE_PLUGIN_JOBTRACE_([A-Z0-9_]+)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			if !slices.Contains(read, m[1]) {
				read = append(read, m[1])
			}
		}
	}
	sort.Strings(declared)
	sort.Strings(read)
	if !slices.Equal(declared, read) {
		t.Errorf("plugin.yml declares %v, the hooks read %v", declared, read)
	}
	readme, err := os.ReadFile(filepath.Join(buildkitePlugin, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range def.Configuration.Properties {
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("README.md does not document the option %q", name)
		}
	}
}

// The scripts pass shellcheck: the Buildkite hooks as bash, the GitLab
// component's scripts as POSIX sh (the runner's shell in an image without
// bash). Skipped without shellcheck; CI installs it.
func TestCIScriptsPassShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck is not installed")
	}
	job := gitlabComponent(t, nil)[".jobtrace"]
	dir := t.TempDir()
	var files []string
	for name, lines := range map[string][]string{"before_script": job.BeforeScript, "after_script": job.AfterScript} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"+strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	hooks, _ := filepath.Glob(filepath.Join(buildkitePlugin, "hooks", "*"))
	lib, _ := filepath.Glob(filepath.Join(buildkitePlugin, "lib", "*"))
	files = append(append(files, hooks...), lib...)
	out, err := exec.Command("shellcheck", append([]string{"-x"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}
