// The steps of jobtrace's GitHub Action, in plain Node (no packages): each
// entry point only reads what the runner gives an action (INPUT_*,
// STATE_*, GITHUB_* files and variables) and runs the jobtrace binary.
// Nothing here may fail the job: a problem is a warning, and the job goes
// on untraced. See docs/github-actions.md.
'use strict';

const childProcess = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

// The root of the action's checkout: this file is .github/action/lib.js.
const actionDir = path.resolve(__dirname, '..', '..');

// input returns the action's input name, as the runner passes it
// (INPUT_<NAME>, upper case, spaces as underscores).
function input(name) {
  return (process.env['INPUT_' + name.replace(/ /g, '_').toUpperCase()] || '').trim();
}

// state returns what an earlier entry point saved with saveState.
function state(name) {
  return process.env['STATE_' + name] || '';
}

// appendFileCommand appends name=value to the runner's file named by the
// variable file (GITHUB_STATE, GITHUB_OUTPUT, GITHUB_ENV), in the
// delimited form, which takes any value.
function appendFileCommand(file, name, value) {
  const target = process.env[file];
  if (!target) {
    warning(`${file} is not set: ${name} not saved`);
    return;
  }
  const delim = 'ghadelimiter_' + crypto.randomUUID();
  fs.appendFileSync(target, `${name}<<${delim}${os.EOL}${value}${os.EOL}${delim}${os.EOL}`);
}

function saveState(name, value) { appendFileCommand('GITHUB_STATE', name, value); }
function setOutput(name, value) { appendFileCommand('GITHUB_OUTPUT', name, value); }

// addPath puts dir on the PATH of the steps that follow.
function addPath(dir) {
  if (process.env.GITHUB_PATH) {
    fs.appendFileSync(process.env.GITHUB_PATH, dir + os.EOL);
  }
}

// escape makes a message one workflow command line.
function escape(s) {
  return String(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function warning(msg) { process.stdout.write(`::warning title=jobtrace::${escape(msg)}${os.EOL}`); }
function mask(secret) { if (secret) process.stdout.write(`::add-mask::${escape(secret)}${os.EOL}`); }

// run runs the command, its output passed through, and returns what
// failed: '' when it exited with status 0.
function run(cmd, args, opts) {
  const r = childProcess.spawnSync(cmd, args, Object.assign({ stdio: ['ignore', 'inherit', 'inherit'] }, opts));
  if (r.error) {
    return r.error.code === 'ENOENT' ? 'not found' : r.error.message;
  }
  if (r.status !== 0) {
    return r.status === null ? `killed by ${r.signal}` : `exit status ${r.status}`;
  }
  return '';
}

// haveGo reports whether go runs.
function haveGo() {
  return !childProcess.spawnSync('go', ['version'], { stdio: 'ignore' }).error;
}

// build builds jobtrace from the action's checkout with the runner's Go,
// into the tool cache; Go's build cache makes a second build quick where
// the cache is kept (a self-hosted runner, or actions/cache of it). It
// returns the binary, or '' with a warning.
function build() {
  const version = process.env.GITHUB_ACTION_REF || 'dev';
  const root = process.env.RUNNER_TOOL_CACHE || process.env.RUNNER_TEMP || os.tmpdir();
  const bin = path.join(root, 'jobtrace', version.replace(/[^A-Za-z0-9._-]/g, '_'), process.arch, 'jobtrace');
  const env = Object.assign({}, process.env, { CGO_ENABLED: '0' });
  const args = ['build', '-ldflags', `-X main.version=${version}`, '-o', bin, './cmd/jobtrace'];
  const failed = run('go', args, { cwd: actionDir, env });
  if (failed) {
    warning(failed === 'not found'
      ? 'no Go on this runner to build jobtrace with: add actions/setup-go before this step, or give the action a binary (input binary)'
      : `go build of jobtrace failed (${failed}): the job is not traced`);
    return '';
  }
  return bin;
}

// start builds or finds jobtrace and starts the job's agent (jobtrace
// start, which writes TRACEPARENT, JOBTRACE_SOCKET, ... to $GITHUB_ENV for
// the steps that follow), once per job: in pre, or, when pre did not try
// (a local action has no pre; a runner without Go before the job's steps,
// which may set it up), in main.
function start(entry) {
  if (state('tried')) {
    // main after pre: pre started the agent, or said why not.
    if (state('out')) {
      setOutput('out', state('out'));
    }
    return;
  }
  if (entry === 'pre' && !input('binary') && !haveGo()) {
    process.stdout.write(`jobtrace: no Go on PATH yet: jobtrace is built at this action's own step${os.EOL}`);
    return;
  }
  saveState('tried', 'yes');
  const out = path.resolve(input('out') || 'jobtrace-out');
  let bin = input('binary');
  if (bin) {
    bin = path.resolve(bin);
    if (!fs.existsSync(bin)) {
      warning(`binary ${bin} does not exist: the job is not traced`);
      return;
    }
  } else {
    bin = build();
    if (!bin) {
      return;
    }
  }
  const env = Object.assign({}, process.env);
  if (input('endpoint')) {
    env.OTEL_EXPORTER_OTLP_ENDPOINT = input('endpoint');
  }
  if (input('headers')) {
    mask(input('headers'));
    env.OTEL_EXPORTER_OTLP_HEADERS = input('headers');
  }
  // The agent ends when the job does: it watches the process that runs
  // this step, the runner's Runner.Worker, which runs every step of the
  // job and ends with it.
  const args = ['start', '--out', out];
  if (process.ppid > 1) {
    args.push('--watch-pid', String(process.ppid));
  }
  const failed = run(bin, args, { env });
  if (failed) {
    warning(`jobtrace start failed (${failed}): the job is not traced`);
    return;
  }
  saveState('binary', bin);
  saveState('out', out);
  setOutput('out', out);
  addPath(path.dirname(bin));
}

// stop adds the job's steps as phases and ends the job (jobtrace stop
// --github-steps, which prints the summary and appends it to
// $GITHUB_STEP_SUMMARY), unless a step stopped it already.
function stop() {
  const bin = state('binary');
  const out = state('out');
  if (!bin) {
    return; // not started: the warning was given then
  }
  if (stopped(out)) {
    process.stdout.write(`jobtrace: the job was stopped by an earlier step; its artifacts are in ${out}${os.EOL}`);
    return;
  }
  const env = Object.assign({}, process.env, { GITHUB_TOKEN: input('github-token') });
  const failed = run(bin, ['stop', '--out', out, '--github-steps'], { env });
  if (failed) {
    warning(`jobtrace stop failed (${failed}): see its messages above; the artifacts written are in ${out}`);
  }
}

// stopped reports whether the agent of out has ended (its state file says
// how).
function stopped(out) {
  try {
    const st = JSON.parse(fs.readFileSync(path.join(out, 'jobtrace-agent.json'), 'utf8'));
    return Boolean(st.end);
  } catch (e) {
    return false;
  }
}

module.exports = { start, stop, input, state };
