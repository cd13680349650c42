package otlp

import (
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// partialSuccess reads what the protobuf runtime writes for both signals'
// responses, skipping fields it does not know.
func TestPartialSuccess(t *testing.T) {
	marshal := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	traces := marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
		RejectedSpans: 3, ErrorMessage: "too old"}})
	metrics := marshal(&colmetricpb.ExportMetricsServiceResponse{PartialSuccess: &colmetricpb.ExportMetricsPartialSuccess{
		RejectedDataPoints: 1 << 40, ErrorMessage: "é"}})
	// Fields of every wire type a later version of OTLP might add, around
	// and inside the partial success.
	var unknown []byte
	unknown = protowire.AppendTag(unknown, 7, protowire.VarintType)
	unknown = protowire.AppendVarint(unknown, 300)
	unknown = protowire.AppendTag(unknown, 8, protowire.Fixed64Type)
	unknown = protowire.AppendFixed64(unknown, 1)
	unknown = protowire.AppendTag(unknown, 9, protowire.Fixed32Type)
	unknown = protowire.AppendFixed32(unknown, 1)
	unknown = protowire.AppendTag(unknown, 10, protowire.BytesType)
	unknown = protowire.AppendBytes(unknown, []byte("x"))
	inner := append(append([]byte{}, unknown...), marshal(&coltracepb.ExportTracePartialSuccess{RejectedSpans: 5, ErrorMessage: "m"})...)
	var withUnknown []byte
	withUnknown = append(withUnknown, unknown...)
	withUnknown = protowire.AppendTag(withUnknown, 1, protowire.BytesType)
	withUnknown = protowire.AppendBytes(withUnknown, inner)

	for _, c := range []struct {
		name     string
		b        []byte
		rejected int64
		msg      string
		err      bool
	}{
		{"traces", traces, 3, "too old", false},
		{"metrics", metrics, 1 << 40, "é", false},
		{"empty", nil, 0, "", false},
		{"empty partial success", marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{}}), 0, "", false},
		{"unknown fields", withUnknown, 5, "m", false},
		{"truncated", traces[:len(traces)-2], 0, "", true},
		{"a group", protowire.AppendTag(nil, 1, protowire.StartGroupType), 0, "", true},
		{"field 0", []byte{0x02, 0x00}, 0, "", true},
		{"an endless varint", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, "", true},
		{"text", []byte("<html>"), 0, "", true},
	} {
		rejected, msg, err := partialSuccess(c.b)
		if (err != nil) != c.err || err == nil && (rejected != c.rejected || msg != c.msg) {
			t.Errorf("%s: %d %q %v, want %d %q, error %v", c.name, rejected, msg, err, c.rejected, c.msg, c.err)
		}
	}
}
