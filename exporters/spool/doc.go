// Package spool writes finished spans to <out>/spans.otlp.jsonl and reads them
// back.
//
// The file holds one OTLP/JSON ExportTraceServiceRequest per line, the format
// the Collector's otlpjsonfile receiver reads (see
// https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): trace and
// span ids in hex, enums as numbers, camelCase field names. The span
// processor writes the JSON straight from the SDK's spans (appendSpansLine:
// field for field what the SDK's own transform to OTLP makes, byte for byte
// what the Collector's pdata package writes for it), and
// TraceClient.AppendTraces writes pdata read from a spool with pdata's own
// encoder. ReadLines decodes each line once, into
// pdata, which the OTLP client sends as it is.
//
// The file is both a local artifact and the export queue: a forwarder (package
// exporters/forward) reads it from the offset kept in <file>.sent and uploads
// each line to a collector. Writing it never touches the network, so a span is
// on disk a few milliseconds after it ends whatever the collector does.
//
// Wiring, in order of use:
//
//	c := spool.NewTraceClient(filepath.Join(out, spool.TracesFile))
//	c.OnAppend(func(int64, int) { fwd.Notify() })
//	p := spool.NewSpanProcessor(c, spool.WithWarn(warn))
//	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), ...)
//	...
//	tp.Shutdown(ctx) // drains the queue into the file and closes it
package spool
