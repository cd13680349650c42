package supervise

import "errors"

// Replace would run the command args in place of jobtrace; Windows cannot
// replace a process's program, and jobtrace never needs to there (its
// handles are not bounded by a small limit).
func Replace(args, env []string) error {
	return &StartError{ExitNotExecutable, errors.New("replacing jobtrace with the command is not supported on Windows")}
}
