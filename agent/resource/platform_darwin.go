package resource

var platform = darwinFiles
