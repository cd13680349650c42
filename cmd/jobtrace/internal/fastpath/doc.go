// Package fastpath answers `jobtrace phase|event|counter` inside a
// `jobtrace run` before the rest of jobtrace is initialized.
//
// These commands only write one line to the socket named by
// JOBTRACE_SOCKET and read the reply, but jobtrace is one binary that also
// links the OpenTelemetry SDK, gRPC and the OTLP exporters, whose package
// initialization costs several milliseconds per call. A job that marks many
// phases pays that each time. Go initializes packages in dependency order,
// and among those that are ready, by import path; this package depends only
// on a few packages of the standard library, so its init runs right after
// them, handles the simple, well-formed forms of the three commands, and
// exits. Anything else (help, a malformed flag, no socket, an error before
// the message is sent) returns from init without a trace, and main handles
// the command as usual, with its full checks and messages.
//
// The message it sends is the one the full command would send; tests in
// package main compare the two.
package fastpath
