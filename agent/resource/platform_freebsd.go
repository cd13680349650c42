package resource

var platform = freebsdFiles
