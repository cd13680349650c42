package scan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

var fixedNow = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

func all() Options {
	return Options{Phase: true, GitHub: true, GitLab: true, Now: func() time.Time { return fixedNow }}
}

// run feeds in to a new Scanner in chunks of the given size (0: all at
// once), closes it and returns what it emitted.
func run(t *testing.T, opts Options, in string, chunk int) ([]protocol.Msg, Stats) {
	t.Helper()
	var got []protocol.Msg
	s := New(opts, func(m protocol.Msg) { got = append(got, m) })
	b := []byte(in)
	if chunk <= 0 {
		chunk = len(b) + 1
	}
	for len(b) > 0 {
		n := min(chunk, len(b))
		if w, err := s.Write(b[:n]); w != n || err != nil {
			t.Fatalf("Write = %d, %v", w, err)
		}
		b = b[n:]
	}
	s.Close()
	return got, s.Stats()
}

func begin(syntax, name string) protocol.Msg {
	return protocol.Msg{V: 1, Type: protocol.TypeBegin, Name: name, Syntax: syntax, Time: fixedNow}
}

func end(syntax, name string) protocol.Msg {
	return protocol.Msg{V: 1, Type: protocol.TypeEnd, Name: name, Syntax: syntax, Time: fixedNow}
}

func TestSyntaxes(t *testing.T) {
	glStartAt := time.Unix(1560896352, 0)
	glEndAt := time.Unix(1560896353, 0)
	tests := []struct {
		name string
		in   string
		want []protocol.Msg
	}{
		{"phase", "BEGIN_PHASE compile\nbuilding\nEND_PHASE compile\n",
			[]protocol.Msg{begin("phase", "compile"), end("phase", "compile")}},
		{"phase with spaces and attrs", "  BEGIN_PHASE Run unit tests shard=3 os=linux\nEND_PHASE Run unit tests result=failure code=2\n",
			[]protocol.Msg{
				{V: 1, Type: protocol.TypeBegin, Name: "Run unit tests", Syntax: "phase", Time: fixedNow,
					Attrs: []attribute.KeyValue{attribute.String("shard", "3"), attribute.String("os", "linux")}},
				{V: 1, Type: protocol.TypeEnd, Name: "Run unit tests", Result: "failure", Syntax: "phase", Time: fixedNow,
					Attrs: []attribute.KeyValue{attribute.String("code", "2")}},
			}},
		{"phase first word is always the name", "BEGIN_PHASE a=b\nBEGIN_PHASE x a=b y\n",
			[]protocol.Msg{begin("phase", "a=b"), begin("phase", "x a=b y")}},
		{"phase unknown result is refused", "END_PHASE p result=meh\nEND_PHASE q result=skip\n",
			[]protocol.Msg{{V: 1, Type: protocol.TypeEnd, Name: "q", Result: "skip", Syntax: "phase", Time: fixedNow}}},
		{"not phase markers", "BEGIN_PHASE\nBEGIN_PHASEx y\nEND_PHASE   \n echo BEGIN_PHASE x\nBEGIN\nEND\n",
			nil},
		{"phase name of blanks that are not word breaks", "BEGIN_PHASE \r \nEND_PHASE \v\nBEGIN_PHASE \f k=v\nBEGIN_PHASE \x1b[0m\u00a0\n",
			nil},
		{"github", "::group::Install deps\nnpm ci\n::endgroup::\n",
			[]protocol.Msg{
				{V: 1, Type: protocol.TypeBegin, Name: "Install deps", Title: "Install deps", Syntax: "github", Time: fixedNow},
				end("github", ""),
			}},
		{"github empty title", "::group::\n", []protocol.Msg{begin("github", "group")}},
		{"not github", "::grou\n::warning::x\n: :group::x\n", nil},
		{"gitlab", "\x1b[0Ksection_start:1560896352:my_first_section\r\x1b[0KHeader of the 1st collapsible section\nhidden\n\x1b[0Ksection_end:1560896353:my_first_section\r\x1b[0K\n",
			[]protocol.Msg{
				{V: 1, Type: protocol.TypeBegin, Name: "my_first_section", Title: "Header of the 1st collapsible section", Syntax: "gitlab", Time: glStartAt},
				{V: 1, Type: protocol.TypeEnd, Name: "my_first_section", Syntax: "gitlab", Time: glEndAt},
			}},
		{"gitlab options", "section_start:1560896352:deps.install-1[collapsed=true,hide_duration=true]\r\x1b[0K\x1b[36mInstalling\x1b[0m\n",
			[]protocol.Msg{{V: 1, Type: protocol.TypeBegin, Name: "deps.install-1", Title: "Installing", Syntax: "gitlab", Time: glStartAt}}},
		{"gitlab no header", "section_start:1560896352:s\r\x1b[0K\nsection_end:1560896353:s\n",
			[]protocol.Msg{
				{V: 1, Type: protocol.TypeBegin, Name: "s", Title: "s", Syntax: "gitlab", Time: glStartAt},
				{V: 1, Type: protocol.TypeEnd, Name: "s", Syntax: "gitlab", Time: glEndAt},
			}},
		{"not gitlab", "section_start:abc:x\r\nsection_start:1::x\nsection_start:1:x y\nsection_start:1:x[collapsed\nsection_start:\nsection\n",
			nil},
		{"crlf and colours", "\x1b[1m\x1b[32mBEGIN_PHASE lint\x1b[0m\r\n\t::group::\x1b[33mTests\x1b[0m\r\n::endgroup::\r\n",
			[]protocol.Msg{begin("phase", "lint"),
				{V: 1, Type: protocol.TypeBegin, Name: "Tests", Title: "Tests", Syntax: "github", Time: fixedNow},
				end("github", "")}},
		{"osc escape before marker", "\x1b]0;title\x07BEGIN_PHASE x\n", []protocol.Msg{begin("phase", "x")}},
		{"binary garbage", "\x00\xff\xfe\x1b\x1b[\x1b]\nBEGIN_PHASE \xffbad\xc3\n\x1b",
			[]protocol.Msg{begin("phase", "\uFFFDbad\uFFFD")}},
		{"final line without newline", "hello\nEND_PHASE last", []protocol.Msg{end("phase", "last")}},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%s/chunk%d", tt.name, chunk), func(t *testing.T) {
				got, st := run(t, all(), tt.in, chunk)
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got  %#v\nwant %#v", got, tt.want)
				}
				if st.Markers != uint64(len(tt.want)) {
					t.Errorf("Markers = %d, want %d", st.Markers, len(tt.want))
				}
			})
		}
	}
}

func TestSyntaxesSwitchOff(t *testing.T) {
	in := "BEGIN_PHASE a\n::group::b\nsection_start:1:c\r\x1b[0Kc\n"
	for _, tc := range []struct {
		opts Options
		want []string
	}{
		{Options{Phase: true}, []string{"phase"}},
		{Options{GitHub: true}, []string{"github"}},
		{Options{GitLab: true}, []string{"gitlab"}},
		{Options{}, nil},
	} {
		got, _ := run(t, tc.opts, in, 0)
		var syn []string
		for _, m := range got {
			syn = append(syn, m.Syntax)
		}
		if !reflect.DeepEqual(syn, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.opts, syn, tc.want)
		}
	}
}

func TestNameLimit(t *testing.T) {
	name := strings.Repeat("é", protocol.MaxNameBytes) // 2 bytes each
	got, _ := run(t, all(), "BEGIN_PHASE "+name+"\n", 0)
	if len(got) != 1 || !protocol.ValidName(got[0].Name) || !strings.HasPrefix(name, got[0].Name) {
		t.Fatalf("got %#v", got)
	}
}

func TestLongLines(t *testing.T) {
	opts := all()
	opts.MaxLineBytes = 32
	long := "BEGIN_PHASE " + strings.Repeat("x", 100)
	in := long + "\nBEGIN_PHASE ok\n" + long + "\r\n::endgroup::\n" + long
	for _, chunk := range []int{0, 1, 5, 31, 32, 33} {
		got, st := run(t, opts, in, chunk)
		want := []protocol.Msg{begin("phase", "ok"), end("github", "")}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("chunk %d: got %#v", chunk, got)
		}
		if st != (Stats{Lines: 5, Markers: 2, LongLines: 3}) {
			t.Errorf("chunk %d: stats %+v", chunk, st)
		}
	}
}

func TestBufferBounded(t *testing.T) {
	s := New(Options{Phase: true, MaxLineBytes: 100}, func(protocol.Msg) {})
	chunk := bytes.Repeat([]byte("y"), 1000)
	for range 1000 {
		s.Write(chunk)
	}
	if cap(s.buf) > 200 {
		t.Fatalf("buffer grew to %d", cap(s.buf))
	}
	s.Write([]byte("\nBEGIN_PHASE after\n"))
	if st := s.Stats(); st.Markers != 1 || st.LongLines != 1 || st.Lines != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestPatterns(t *testing.T) {
	opts := all()
	opts.Patterns = []Pattern{
		{Regexp: regexp.MustCompile(`^warning: `), Event: "compiler.warning", Counter: "compiler.warnings"},
		{Regexp: regexp.MustCompile(`BEGIN_PHASE`), Counter: "begins"},
		{Regexp: regexp.MustCompile(`^error`), Event: "error"},
	}
	long := "warning: " + strings.Repeat("é", 600) // 1209 bytes
	in := "warning: unused x\r\nok\n\x1b[33mwarning: \x1b[0mcoloured\nBEGIN_PHASE p\n" + long + "\nerror"
	got, st := run(t, opts, in, 3)
	var kinds []string
	for _, m := range got {
		kinds = append(kinds, string(m.Type)+":"+m.Name+":"+m.Syntax)
		if m.Type == protocol.TypeCounter && m.Value != 1 {
			t.Errorf("counter value %v", m.Value)
		}
	}
	want := []string{
		"event:compiler.warning:pattern", "counter:compiler.warnings:pattern",
		"event:compiler.warning:pattern", "counter:compiler.warnings:pattern",
		"begin:p:phase", "counter:begins:pattern",
		"event:compiler.warning:pattern", "counter:compiler.warnings:pattern",
		"event:error:pattern",
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("got %q\nwant %q", kinds, want)
	}
	if line := got[0].Attrs[0]; line != attribute.String(LineAttr, "warning: unused x") {
		t.Errorf("line attr %v", line)
	}
	if line := got[2].Attrs[0].Value.AsString(); line != "warning: coloured" {
		t.Errorf("coloured line attr %q", line)
	}
	if line := got[6].Attrs[0].Value.AsString(); len(line) > MaxLineAttrBytes || !utf8.ValidString(line) || !strings.HasPrefix(long, line) {
		t.Errorf("long line attr has %d bytes", len(line))
	}
	if st.PatternHits != 5 || st.Lines != 6 || st.Markers != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestRandomChunks checks that splitting never changes what is found.
func TestRandomChunks(t *testing.T) {
	opts := all()
	opts.Patterns = []Pattern{{Regexp: regexp.MustCompile(`FAIL`), Event: "fail"}}
	in := strings.Repeat("noise line\r\nBEGIN_PHASE a\n::group::g\r\n--- FAIL: x\n\x1b[0Ksection_start:1:s\r\x1b[0Kh\n::endgroup::\nEND_PHASE a\n", 20)
	want, _ := run(t, opts, in, 0)
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		var got []protocol.Msg
		s := New(opts, func(m protocol.Msg) { got = append(got, m) })
		b := []byte(in)
		for len(b) > 0 {
			n := min(1+r.IntN(40), len(b))
			s.Write(b[:n])
			b = b[n:]
		}
		s.Close()
		if !reflect.DeepEqual(got, want) {
			t.Fatal("random chunking changed the result")
		}
	}
}

// buildOutput makes about size bytes of ordinary build output.
func buildOutput(size int) []byte {
	lines := []string{
		"go: downloading github.com/prometheus/client_golang v1.19.0",
		"[ 45%] Building CXX object src/core/CMakeFiles/core.dir/scheduler.cpp.o",
		"gcc -O2 -Wall -I/usr/include/glib-2.0 -c src/main.c -o build/main.o",
		"   Compiling serde_json v1.0.114",
		"\x1b[32m✓\x1b[0m packages/ui/src/button.test.tsx (12 tests) 34ms",
		"ok  \tgithub.com/example/project/internal/store\t0.412s",
		"npm WARN deprecated inflight@1.0.6: This module is not supported",
		"",
		"Step 7/12 : RUN apt-get update && apt-get install -y build-essential",
		"src/parser.c:412:9: note: in expansion of macro 'CHECK'",
	}
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func benchScan(b *testing.B, opts Options) {
	data := buildOutput(4 << 20)
	s := New(opts, func(protocol.Msg) {})
	const chunk = 32 << 10 // a typical pipe read
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			s.Write(p[:n])
			p = p[n:]
		}
	}
}

func BenchmarkScanNoPatterns(b *testing.B) {
	benchScan(b, Options{Phase: true, GitHub: true, GitLab: true})
}

func BenchmarkScanTwoPatterns(b *testing.B) {
	opts := Options{Phase: true, GitHub: true, GitLab: true, Patterns: []Pattern{
		{Regexp: regexp.MustCompile(`^npm WARN deprecated`), Event: "npm.deprecated"},
		{Regexp: regexp.MustCompile(`(error|warning): `), Counter: "compiler.diagnostics"},
	}}
	benchScan(b, opts)
}

func TestGitLabWholeSecondsAreRefinedWhenReadInThatSecond(t *testing.T) {
	now := time.Unix(1700000000, 400_000_000)
	opts := Options{GitLab: true, Now: func() time.Time { return now }}
	got, _ := run(t, opts, "section_start:1700000000:recent\nsection_start:1699999990:old\n", 0)
	if len(got) != 2 {
		t.Fatalf("got %d messages", len(got))
	}
	if !got[0].Time.Equal(now) {
		t.Errorf("recent section at %v, want the read time %v", got[0].Time, now)
	}
	if !got[1].Time.Equal(time.Unix(1699999990, 0)) {
		t.Errorf("old section at %v, want its own timestamp", got[1].Time)
	}
}

// TestSkipResumesAtTheNextLine feeds a stream in which a part was skipped:
// the lines the gap touches are not scanned, counted, and scanning resumes
// at the next whole line, wherever the gap falls.
func TestSkipResumesAtTheNextLine(t *testing.T) {
	in := "BEGIN_PHASE a\nBEGIN_PHASE b\nEND_PHASE b\nBEGIN_PHASE c\nEND_PHASE c\nEND_PHASE a\n"
	// Skip in[from:to]: the markers of the lines it touches are lost.
	for from := 0; from < len(in); from++ {
		for to := from + 1; to <= len(in); to++ {
			var got []string
			s := New(all(), func(m protocol.Msg) { got = append(got, string(m.Type)+" "+m.Name) })
			s.Write([]byte(in[:from]))
			gap := in[from:to]
			s.Skip(int64(len(gap)), int64(strings.Count(gap, "\n")), strings.HasSuffix(gap, "\n"))
			s.Write([]byte(in[to:]))
			s.Close()
			var want []string
			lost := 0
			start := 0
			for _, line := range strings.SplitAfter(in, "\n") {
				if line == "" {
					continue
				}
				end := start + len(line)
				if end > from && start < to {
					lost++ // the gap touches this line
				} else {
					typ, name, _ := strings.Cut(strings.TrimSpace(line), " ")
					want = append(want, map[string]string{"BEGIN_PHASE": "begin", "END_PHASE": "end"}[typ]+" "+name)
				}
				start = end
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("gap [%d:%d] %q: markers %q, want %q", from, to, gap, got, want)
			}
			st := s.Stats()
			if st.UnscannedLines != uint64(lost) || st.UnscannedBytes != uint64(to-from) || st.Lines != 6 {
				t.Fatalf("gap [%d:%d] %q: stats %+v, want %d unscanned lines, 6 lines", from, to, gap, st, lost)
			}
		}
	}
}

func TestSkipInsideALongLineCountsItOnce(t *testing.T) {
	s := New(Options{Phase: true, MaxLineBytes: 14}, func(protocol.Msg) {})
	s.Write([]byte("a very long line!"))
	s.Skip(6, 1, false) // its end, and the start of the next
	s.Write([]byte("rest\nBEGIN_PHASE x\n"))
	st := s.Stats()
	if st.LongLines != 1 || st.UnscannedLines != 1 || st.Lines != 3 || st.Markers != 1 {
		t.Errorf("stats %+v, want 1 long, 1 unscanned, 3 lines, 1 marker", st)
	}
}

func TestMarkersCarryTheTimeTheyWereRead(t *testing.T) {
	var got []time.Time
	s := New(all(), func(m protocol.Msg) { got = append(got, m.Time) })
	read := fixedNow.Add(-time.Second)
	s.WriteRead([]byte("BEGIN_PHASE a\n::group::b\nEND_PH"), read)
	s.WriteRead([]byte("ASE a\n"), read.Add(time.Millisecond))
	s.Write([]byte("::endgroup::\n"))
	want := []time.Time{read, read, read.Add(time.Millisecond), fixedNow}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}
}

// Names, titles, attributes and pattern lines from the job's output come
// out valid UTF-8 without control characters: invalid bytes and controls
// (but tab) become U+FFFD; escape sequences are stripped as before.
func TestControlCharactersAndInvalidUTF8AreCleaned(t *testing.T) {
	opts := all()
	opts.Patterns = []Pattern{{Regexp: regexp.MustCompile(`FAIL`), Event: "fail"}}
	in := "::group::a\x07b\x1b[31mc\xff\r\n" +
		"BEGIN_PHASE p\x01q k\x02=v\xfe\x1b]0;x\x07\n" +
		"FAIL \x00 \x85\xc2\x85\n"
	got, _ := run(t, opts, in, 0)
	if len(got) != 3 {
		t.Fatalf("got %d messages: %+v", len(got), got)
	}
	if got[0].Name != "a\uFFFDbc\uFFFD" || got[0].Title != got[0].Name {
		t.Errorf("group name %q, title %q", got[0].Name, got[0].Title)
	}
	if got[1].Name != "p\uFFFDq" {
		t.Errorf("phase name %q", got[1].Name)
	}
	for _, m := range got {
		for _, s := range append([]string{m.Name, m.Title}, attrTexts(m.Attrs)...) {
			if !utf8.ValidString(s) {
				t.Errorf("invalid UTF-8 in %q", s)
			}
			for _, r := range s {
				if (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f) {
					t.Errorf("control character %U in %q", r, s)
				}
			}
		}
	}
}

func attrTexts(kvs []attribute.KeyValue) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, string(kv.Key), kv.Value.Emit())
	}
	return out
}

func TestStopSkipsTheRest(t *testing.T) {
	var s *Scanner
	var got []string
	s = New(all(), func(m protocol.Msg) {
		got = append(got, m.Name)
		s.Stop() // from the tracker's side, in the middle of a Write
	})
	s.Write([]byte("BEGIN_PHASE a\nBEGIN_PHASE b\nEND_PHASE b\nEND_PH"))
	s.Write([]byte("ASE a\n"))
	s.Close()
	st := s.Stats()
	if len(got) != 1 || st.UnscannedLines != 3 || st.Lines != 4 || st.UnscannedBytes != uint64(len("BEGIN_PHASE b\nEND_PHASE b\nEND_PHASE a\n")) {
		t.Errorf("markers %q, stats %+v; want a only, 3 of 4 lines unscanned", got, st)
	}
}
