package supervise

import (
	"os"
	"os/signal"
	"time"
)

// Run runs one command with jobtrace's standard files and env (baseEnv
// when env is too large: see Options.BaseEnv), forwarding
// signals and applying the grace period, as 'jobtrace exec' does. spare
// (nil for none) is freed for a start made again on jobtrace's own output
// (RetryDirect), and once the command has started. It returns the exit code
// as a shell reports it; a *StartError for a command that cannot be
// started.
func Run(args, env, baseEnv []string, grace time.Duration, log *Logger, spare *Spare) (int, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, ForwardedSignals()...)
	defer signal.Stop(sigs)
	opts := Options{Args: args, Env: env, BaseEnv: baseEnv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		GracePeriod: grace, Warn: log.Warn}
	job, err := Start(opts)
	if RetryDirect(err) {
		log.Printf("%v: running the command on jobtrace's own output", err)
		spare.Free()
		opts.Direct = true
		job, err = Start(opts)
	}
	spare.Free()
	if err != nil {
		return 0, err
	}
	return job.Supervise(sigs, grace, log), nil
}

// Supervise forwards signals to the job until it exits, and returns its
// exit code (see Wait); after the first forwarded signal, the job's process
// group gets SIGKILL once the grace period is over.
func (job *Job) Supervise(sigs <-chan os.Signal, grace time.Duration, log *Logger) int {
	codec := make(chan int, 1)
	go func() { codec <- job.Wait() }()
	var kill <-chan time.Time
	for {
		select {
		case code := <-codec:
			return code
		case s := <-sigs:
			_ = job.Signal(s)
			if kill == nil {
				kill = time.After(grace)
			}
		case <-kill:
			log.Printf("the job did not end within the grace period of %v after a signal: sending SIGKILL to its process group", grace)
			_ = job.Kill()
			kill = nil
		}
	}
}
