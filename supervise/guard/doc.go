// Package guard kills a job whose jobtrace was killed.
//
// `jobtrace run` supervises its job while it lives; when it is killed
// (SIGKILL, the OOM killer, a crash), nothing of its own runs any more, and
// the job's descendants (background children, daemons that left the job's
// session with setsid) would run on, re-parented to init, in a cgroup that
// nobody removes. The guard is a small process that outlives jobtrace just
// long enough to end the job.
//
// # Shape
//
// jobtrace starts the guard once the job has run for Delay (50 ms), so
// that a short job pays nothing for it: the same binary, re-executed
// through /proc/self/exe with the single argument Arg, in a session of its
// own (so the signals a terminal or a CI runner sends to jobtrace's process
// group do not reach it), with an empty environment, /dev/null as stdin and
// stdout, jobtrace's stderr (or its --log file) as stderr, and the read end
// of a pipe as descriptor 3. The binary calls Main from an init function of
// a package that depends only on the standard library (and on jobtrace's
// internal/cgrouptree, procstat and kernfmt, which depend on nothing
// else: TestOnlyTheStandardLibrary), so the guard runs
// before the rest of jobtrace (the OpenTelemetry SDK, gRPC) is initialized:
// its start costs a few milliseconds of CPU (the exec of the binary, the Go
// runtime's start), on the other core, while the job runs.
//
// jobtrace alone holds the pipe's write end (close-on-exec, so neither the
// job nor the guard inherits it), made when the guard is started. It writes
// what the guard needs as lines, those told before then at once (the pipe
// holds them until the guard reads; until then they are kept in memory, so
// a job that ends within Delay costs no system call for its guard): its own
// start time, the job's pid (its process group and session), its cgroup,
// its private directory, and entries of the environment only the job has. The guard
// reads them and then blocks in read(2), costing nothing. When jobtrace is
// done with its job (the job ended, its cgroup is removed), it writes
// "release" and the guard exits without doing anything; Guard.Close, at the
// end of the run, reaps it. When jobtrace dies
// first, however it dies, the kernel closes the write end and the guard
// reads end-of-file with no release: it kills the job and cleans up. A pipe
// is used rather than PR_SET_PDEATHSIG, which fires when the thread that
// started the guard exits, not the process.
//
// # What the guard kills
//
//   - With a cgroup of the job's own, everything in it: cgroup.kill (Linux
//     5.14 and later) kills the whole sub-tree at once, whatever its
//     processes did (setsid, double fork, a cleared environment); on older
//     kernels every process listed in it is killed until none is left. Then
//     the cgroup is removed.
//   - In every case, the job's processes it can find without a cgroup: the
//     job's process group and session, the orphans jobtrace had adopted as
//     a child subreaper (told by its sampler), every process whose environment
//     holds one of the job's own entries (TRACEPARENT, JOBTRACE_SOCKET,
//     JOBTRACE_MARKER_DIR, whose values are unique to the run), and all the
//     descendants of those, limited to processes started after jobtrace. They are stopped first (SIGSTOP), so
//     that none can fork or re-parent while the rest are found, then killed.
//
// If jobtrace is killed within Delay of the job's start, there is no guard
// yet: the job's first process dies with jobtrace (parent-death signal),
// the next run kills what is left in a cgroup of the job's own, and other
// processes the job started in that time live on.
//
// Without a cgroup, a process escapes when it left the job's session and
// process group, dropped the job's environment entries, and was orphaned
// after jobtrace's last sample (or its parent was the job's first process,
// which the parent-death signal kills first).
//
// Then the guard removes the private directory of the socket and marker
// dir, and writes one line to stderr saying what it did.
package guard
