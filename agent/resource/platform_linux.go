package resource

var platform = linuxFiles
