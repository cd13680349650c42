package resource

var platform = darwinFiles

// kernelRelease is "" here: the kernel is described by its files.
func kernelRelease() string { return "" }
