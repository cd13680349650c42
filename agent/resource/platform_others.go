//go:build !linux && !darwin && !freebsd

package resource

var platform = otherFiles

// kernelRelease is "" here: the kernel is described by its files.
func kernelRelease() string { return "" }
