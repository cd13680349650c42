// Package fastpath answers `jobtrace phase|event|counter` inside a
// `jobtrace run` before the rest of jobtrace is initialized, and holds the
// one parser of those commands' lines, which main uses too.
//
// These commands only write one line to the socket named by
// JOBTRACE_SOCKET (with the TRACEPARENT they were started with as its
// scope) and read the reply, but jobtrace is one binary that also links
// the OpenTelemetry SDK, gRPC and the OTLP exporters, whose package
// initialization costs milliseconds per call. A job that marks many phases
// pays that each time. So this package answers from its init function and
// exits, and the rule that makes that init run first is this one:
//
// Go initializes a package once every package it imports is initialized;
// among those that are ready, it takes them in the order of their import
// paths (the Go specification, "Package initialization", since Go 1.21).
// This package imports only syscall, time, strconv, errors, spans/wire
// (which adds internal/jsonstring and unicode/utf8) and internal/stackhint
// (which imports nothing): nothing that imports os or
// strings, which every package outside the standard library imports. So it
// is ready as soon as time is, before any OpenTelemetry, gRPC or other
// module's package can be, whatever their import paths. It reads its
// arguments from /proc/self/cmdline, not os.Args, for that reason; on
// systems without it (args_others.go) it imports os, and runs after os.
// TestFastPathInitializesFirst (cmd/jobtrace) checks the rule on the built
// binary with GODEBUG=inittrace=1; an import that breaks it fails there.
//
// The fast path handles the well-formed forms of the three commands.
// Anything else (help, a usage error, no socket, an error before the
// message is sent) returns from init without a trace, and main handles the
// command as usual, with the same parser and its full checks and messages.
package fastpath
