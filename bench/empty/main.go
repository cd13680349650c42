// Command empty is a Go program that does nothing: what starting any Go
// program costs on the machine, the floor under a `jobtrace phase` call
// (itself a Go program) in docs/performance.md's markers figures.
package main

func main() {}
