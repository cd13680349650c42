//go:build !linux

package proctree

import "time"

// Sample returns ErrUnsupported: the process tree is read from Linux /proc.
func (r *Reader) Sample(roots []int, now time.Time) (Usage, error) {
	return Usage{Time: now}, ErrUnsupported
}

// Children returns ErrUnsupported: children are found in Linux /proc.
func (r *Reader) Children(pid int, dst []int) ([]int, error) {
	return dst, ErrUnsupported
}

// SampleCgroup returns ErrUnsupported: processes are read from Linux /proc.
func (r *Reader) SampleCgroup(roots []int, cgroupDir string, now time.Time) (Usage, error) {
	return Usage{Time: now}, ErrUnsupported
}

type jobCgroup struct{}

type ownFiles struct{}

type procFiles struct{}

// Close releases the files the Reader keeps open; there are none here.
func (r *Reader) Close() {}
