//go:build !illumos

package kstat

import (
	"fmt"
	"runtime"
)

const devicePath = "/dev/kstat"

func openDevice(string) (device, error) {
	return nil, fmt.Errorf("kstat: %w on %s: kstats are read on illumos only", ErrUnsupported, runtime.GOOS)
}
