//go:build !linux && !darwin && !freebsd

package resource

var platform = otherFiles
