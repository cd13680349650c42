//go:build !linux

package e2e

import "syscall"

func serverSysProcAttr() *syscall.SysProcAttr { return nil }
