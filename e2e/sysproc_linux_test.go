package e2e

import "syscall"

// serverSysProcAttr makes the kernel kill a server when the test binary dies
// (a `go test -timeout` panic, a kill), so no Jaeger or collector is left
// holding ports.
func serverSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
