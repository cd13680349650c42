//go:build unix

package supervise

import "syscall"

// Replace runs the command args in place of jobtrace, as a shell's exec
// does: same process, same files, the environment env, the limit of file
// descriptors jobtrace was started with. It returns only when the command
// could not be run, with a *StartError whose Code is the shell's (127 not
// found, 126 not executable). It is how jobtrace steps aside for a command
// it has not the descriptors to run under it.
func Replace(args, env []string) error {
	if len(args) == 0 {
		return &StartError{ExitNotFound, errNoCommand}
	}
	path, err := resolve(args[0])
	if err != nil {
		return err
	}
	return execFailed(args[0], syscall.Exec(path, args, env))
}
