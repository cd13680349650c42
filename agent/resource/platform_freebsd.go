package resource

var platform = freebsdFiles

// kernelRelease is "" here: the kernel is described by its files.
func kernelRelease() string { return "" }
