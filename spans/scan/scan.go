package scan

import (
	"bytes"
	"regexp"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/warnlimit"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// DefaultMaxLineBytes bounds the partial line a Scanner keeps when Options
// leaves MaxLineBytes at zero. Markers are short; 64 KiB leaves room for
// long titles and for patterns on long compiler lines, and is small next to
// the agent's memory budget even with two streams.
const DefaultMaxLineBytes = 64 << 10

// MaxLineAttrBytes bounds the jobtrace.line attribute of a pattern event.
const MaxLineAttrBytes = 1 << 10

// LineAttr is the attribute key that carries the matching line of a
// pattern event.
const LineAttr = "jobtrace.line"

// Pattern turns matching output lines into events and counters.
type Pattern struct {
	Regexp  *regexp.Regexp
	Event   string // event name; "" means no event
	Counter string // counter to add 1 to for each match; "" means none
}

// Options selects the syntaxes a Scanner looks for.
type Options struct {
	Phase, GitHub, GitLab bool
	Patterns              []Pattern
	MaxLineBytes          int              // 0 means DefaultMaxLineBytes
	Now                   func() time.Time // nil means time.Now
	// Warn is told of the markers refused (Stats.Refused), rate-limited
	// as the socket's warnings are; nil: they are only counted.
	Warn func(string)
}

// Stats counts what a Scanner saw.
type Stats struct {
	Lines       uint64 // complete lines, long and skipped ones included
	Markers     uint64 // phase, GitHub and GitLab markers emitted
	LongLines   uint64 // lines over MaxLineBytes, not scanned
	PatternHits uint64 // pattern matches (one line can match several patterns)
	// Refused counts the markers that break the protocol's rules
	// (protocol.Validate), which the socket refuses too: an END_PHASE
	// whose result= is none of the results. They are not passed on.
	Refused uint64
	// UnscannedLines and UnscannedBytes count what was given to Skip: lines
	// with any byte skipped, and the bytes skipped.
	UnscannedLines, UnscannedBytes uint64
}

// Scanner is an io.Writer that finds markers in the bytes written to it
// and passes them to its emit function, synchronously, from Write. Write
// and Close must not be called concurrently; Stats may be called from any
// goroutine.
type Scanner struct {
	opts    Options
	now     func() time.Time
	emit    func(protocol.Msg)
	max     int
	markers bool // any of Phase, GitHub, GitLab

	filters  []prefilter // one per pattern
	anyFold  bool        // a filter compares with the lowered line
	lower    []byte      // the line with ASCII letters lowered
	buf      []byte      // the partial line so far
	skipping bool        // inside a line that went over max, or after a gap
	gap      bool        // the line being skipped lost bytes to Skip
	scratch  []byte      // the line without ANSI escapes, for patterns and titles
	read     time.Time   // when the bytes being written were read; zero: now

	st      Stats // owned by the writer
	pub     struct{ lines, markers, long, hits, refused, unLines, unBytes atomic.Uint64 }
	warn    *warnlimit.Limiter
	stopped atomic.Bool
}

// New returns a Scanner that passes every marker it finds to emit.
func New(opts Options, emit func(protocol.Msg)) *Scanner {
	s := &Scanner{opts: opts, emit: emit, now: opts.Now, max: opts.MaxLineBytes,
		warn: warnlimit.New("output: ", opts.Warn, warnlimit.DefaultVerbatim)}
	if s.now == nil {
		s.now = time.Now
	}
	if s.max <= 0 {
		s.max = DefaultMaxLineBytes
	}
	s.markers = opts.Phase || opts.GitHub || opts.GitLab
	for _, p := range opts.Patterns {
		f := prefilter{}
		if p.Regexp != nil {
			f = newPrefilter(p.Regexp)
		}
		s.filters = append(s.filters, f)
		s.anyFold = s.anyFold || f.fold
	}
	return s
}

// mayStartMarker says which first bytes of a line can lead to a marker:
// blanks and escapes that skipPrefix passes over, and the first letters of
// the syntaxes. Other lines need no look when no patterns are set.
var mayStartMarker = [256]bool{' ': true, '\t': true, '\r': true, 0x1b: true, 'B': true, 'E': true, ':': true, 's': true}

// WriteRead scans p, bytes of output that were read at the time read: the
// markers found in p are stamped with it rather than with the time they are
// scanned, which may be later.
func (s *Scanner) WriteRead(p []byte, read time.Time) {
	s.read = read
	s.Write(p)
	s.read = time.Time{}
}

// Skip tells the Scanner that n bytes of output, holding lines newlines and
// ending with one if endsLine, went by without being scanned. The line they
// interrupt is not scanned; scanning resumes at the next line.
func (s *Scanner) Skip(n, lines int64, endsLine bool) {
	if n <= 0 {
		return
	}
	s.st.UnscannedBytes += uint64(n)
	long := s.skipping && !s.gap // counted as a long line already
	s.buf = s.buf[:0]
	if lines == 0 {
		// The line in progress goes on after the gap: skip to its end.
		if !long {
			s.skipping, s.gap = true, true
		}
		s.publish()
		return
	}
	// The line in progress ends in the skipped bytes, and so do the
	// lines-1 after it; the next one is skipped to its end unless the
	// skipped bytes end a line.
	s.st.Lines += uint64(lines)
	s.st.UnscannedLines += uint64(lines)
	if long {
		s.st.UnscannedLines--
	}
	s.skipping, s.gap = !endsLine, !endsLine
	s.publish()
}

// Stop makes the Scanner scan nothing more: the rest of a Write in
// progress, and what is written after, is counted as Skip counts it. It may
// be called from any goroutine.
func (s *Scanner) Stop() { s.stopped.Store(true) }

// skipRest counts p as skipped, for a stopped Scanner.
func (s *Scanner) skipRest(p []byte) {
	if len(p) > 0 {
		s.Skip(int64(len(p)), int64(bytes.Count(p, newline)), p[len(p)-1] == '\n')
	}
	s.publish()
}

var newline = []byte{'\n'}

// Write scans p. It never fails and always reports len(p) written.
func (s *Scanner) Write(p []byte) (int, error) {
	n := len(p)
	if len(s.opts.Patterns) == 0 && !s.skipping && len(s.buf) == 0 {
		// The common case, build output and no patterns: whole lines
		// in p are counted, and only those that may be markers looked at.
		for {
			if s.stopped.Load() {
				s.skipRest(p)
				return n, nil
			}
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				break
			}
			switch {
			case i > s.max:
				s.long()
			case i > 0 && s.markers && mayStartMarker[p[0]]:
				s.line(p[:i])
			default:
				s.st.Lines++
			}
			p = p[i+1:]
		}
	}
	for len(p) > 0 {
		if s.stopped.Load() {
			s.skipRest(p)
			return n, nil
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial(p)
			break
		}
		seg := p[:i]
		p = p[i+1:]
		switch {
		case s.skipping:
			s.endSkipped()
		case len(s.buf) > 0:
			if len(s.buf)+len(seg) > s.max {
				s.long()
			} else {
				s.buf = append(s.buf, seg...)
				s.line(s.buf)
			}
			s.buf = s.buf[:0]
		case len(seg) > s.max:
			s.long()
		default:
			s.line(seg)
		}
	}
	s.publish()
	return n, nil
}

// partial keeps the start of a line that has no newline yet, up to max.
func (s *Scanner) partial(p []byte) {
	if s.skipping {
		return
	}
	if len(s.buf)+len(p) > s.max {
		s.skipping = true
		s.st.LongLines++
		s.buf = s.buf[:0]
		return
	}
	s.buf = append(s.buf, p...)
}

// endSkipped ends a line that was being skipped.
func (s *Scanner) endSkipped() {
	s.skipping = false
	s.st.Lines++
	if s.gap {
		s.gap = false
		s.st.UnscannedLines++
	}
}

func (s *Scanner) long() {
	s.st.Lines++
	s.st.LongLines++
}

// Close scans a final line that has no newline. The Scanner can be written
// to again afterwards as if a newline had been written.
func (s *Scanner) Close() {
	if s.skipping {
		s.endSkipped()
	} else if len(s.buf) > 0 {
		s.line(s.buf)
		s.buf = s.buf[:0]
	}
	s.publish()
	s.warn.Flush()
}

func (s *Scanner) publish() {
	s.pub.lines.Store(s.st.Lines)
	s.pub.markers.Store(s.st.Markers)
	s.pub.long.Store(s.st.LongLines)
	s.pub.hits.Store(s.st.PatternHits)
	s.pub.refused.Store(s.st.Refused)
	s.pub.unLines.Store(s.st.UnscannedLines)
	s.pub.unBytes.Store(s.st.UnscannedBytes)
}

// Stats returns the counts as of the end of the last Write or Close.
func (s *Scanner) Stats() Stats {
	return Stats{
		Lines:       s.pub.lines.Load(),
		Markers:     s.pub.markers.Load(),
		LongLines:   s.pub.long.Load(),
		PatternHits: s.pub.hits.Load(),
		Refused:     s.pub.refused.Load(),

		UnscannedLines: s.pub.unLines.Load(),
		UnscannedBytes: s.pub.unBytes.Load(),
	}
}

// line scans one complete line, without its '\n'.
func (s *Scanner) line(l []byte) {
	s.st.Lines++
	if s.markers {
		j := skipPrefix(l)
		if j < len(l) {
			switch l[j] {
			case 'B', 'E':
				if s.opts.Phase {
					s.phase(trimCR(l[j:]))
				}
			case ':':
				if s.opts.GitHub {
					s.github(trimCR(l[j:]))
				}
			case 's':
				if s.opts.GitLab {
					s.gitlab(trimCR(l[j:]))
				}
			}
		}
	}
	if len(s.opts.Patterns) > 0 {
		s.patterns(l)
	}
}

func (s *Scanner) send(m protocol.Msg) {
	m.V = protocol.Version
	if m.Time.IsZero() {
		m.Time = s.time()
	}
	s.emit(m)
}

func (s *Scanner) marker(m protocol.Msg) {
	s.st.Markers++
	s.send(m)
}

// time is when the line being scanned was read.
func (s *Scanner) time() time.Time {
	if !s.read.IsZero() {
		return s.read
	}
	return s.now()
}

// skipPrefix returns the index of the first byte after leading blanks,
// carriage returns and ANSI escape sequences.
func skipPrefix(l []byte) int {
	j := 0
	for j < len(l) {
		switch l[j] {
		case ' ', '\t', '\r':
			j++
		case 0x1b:
			j += escapeLen(l[j:])
		default:
			return j
		}
	}
	return j
}

// escapeLen returns the length of the escape sequence at the start of b,
// which starts with ESC: a CSI sequence (ESC [ parameters intermediates
// final, ECMA-48 section 5.4), an OSC string ended by BEL or ESC \, or
// ESC and one more byte.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return len(b)
	}
	switch b[1] {
	case '[':
		k := 2
		for k < len(b) && b[k] >= 0x30 && b[k] <= 0x3f {
			k++
		}
		for k < len(b) && b[k] >= 0x20 && b[k] <= 0x2f {
			k++
		}
		if k < len(b) && b[k] >= 0x40 && b[k] <= 0x7e {
			k++
		}
		return k
	case ']':
		for k := 2; k < len(b); k++ {
			if b[k] == 0x07 {
				return k + 1
			}
			if b[k] == 0x1b && k+1 < len(b) && b[k+1] == '\\' {
				return k + 2
			}
		}
		return len(b)
	}
	return 2
}

// stripANSI appends b without escape sequences to dst.
func stripANSI(dst, b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0x1b)
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		b = b[i+escapeLen(b[i:]):]
	}
	return dst
}

func trimCR(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// clean makes a name or title from output bytes: escapes removed, blanks
// trimmed, invalid UTF-8 replaced, cut to max bytes on a rune boundary.
func (s *Scanner) clean(b []byte, max int) string {
	if bytes.IndexByte(b, 0x1b) >= 0 {
		s.scratch = stripANSI(s.scratch[:0], b)
		b = s.scratch
	}
	return cleantext.Truncate(cleantext.Bytes(bytes.TrimSpace(b)), max)
}

var (
	beginPhase = []byte("BEGIN_PHASE")
	endPhase   = []byte("END_PHASE")
)

// phase handles "BEGIN_PHASE name [k=v ...]" and "END_PHASE name [k=v ...]".
// The name is everything up to the trailing key=value words (the first word
// always belongs to the name). On END_PHASE a result=<value> word sets
// Result instead of an attribute; a marker that protocol.Validate refuses
// (a value none of the results) is refused as the socket refuses it:
// warned about, counted, and not passed on.
func (s *Scanner) phase(l []byte) {
	var typ protocol.Type
	var rest []byte
	switch {
	case bytes.HasPrefix(l, beginPhase):
		typ, rest = protocol.TypeBegin, l[len(beginPhase):]
	case bytes.HasPrefix(l, endPhase):
		typ, rest = protocol.TypeEnd, l[len(endPhase):]
	default:
		return
	}
	if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t') {
		return
	}
	if bytes.IndexByte(rest, 0x1b) >= 0 {
		rest = stripANSI(nil, rest)
	}
	words := splitWords(rest)
	if len(words) == 0 {
		return
	}
	first := len(words) // first key=value word of the trailing run
	for first > 1 && isKV(rest[words[first-1][0]:words[first-1][1]]) {
		first--
	}
	last := words[first-1]
	m := protocol.Msg{
		Type:   typ,
		Name:   s.clean(rest[words[0][0]:last[1]], protocol.MaxNameBytes),
		Syntax: protocol.SyntaxPhase,
	}
	if m.Name == "" {
		return // only blanks that are no word break (CR, VT, FF): no name, no marker
	}
	for _, w := range words[first:] {
		kv := rest[w[0]:w[1]]
		eq := bytes.IndexByte(kv, '=')
		key := cleantext.Truncate(cleantext.Bytes(kv[:eq]), protocol.MaxNameBytes)
		val := cleantext.Bytes(kv[eq+1:])
		if typ == protocol.TypeEnd && key == "result" {
			m.Result = val
			continue
		}
		if len(m.Attrs) < protocol.MaxAttrs {
			m.Attrs = append(m.Attrs, attribute.String(key, val))
		}
	}
	if err := protocol.Validate(&m); err != nil {
		s.st.Refused++
		s.warn.Warnf("%v: %s", err, protocol.Excerpt(l))
		return
	}
	s.marker(m)
}

// splitWords returns the [start, end) offsets of the blank-separated words
// of b.
func splitWords(b []byte) [][2]int {
	var out [][2]int
	i := 0
	for i < len(b) {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		start := i
		for i < len(b) && b[i] != ' ' && b[i] != '\t' {
			i++
		}
		if i > start {
			out = append(out, [2]int{start, i})
		}
	}
	return out
}

// isKV reports whether a word looks like key=value with a non-empty key.
func isKV(w []byte) bool { return bytes.IndexByte(w, '=') > 0 }

var (
	ghGroup    = []byte("::group::")
	ghEndGroup = []byte("::endgroup::")
)

// github handles GitHub Actions' "::group::Title" and "::endgroup::"
// workflow commands. Groups do not nest in GitHub; the tracker decides what
// an endgroup closes, so it carries no name.
func (s *Scanner) github(l []byte) {
	switch {
	case bytes.HasPrefix(l, ghGroup):
		title := s.clean(l[len(ghGroup):], protocol.MaxNameBytes)
		name := title
		if name == "" {
			name = "group"
		}
		s.marker(protocol.Msg{Type: protocol.TypeBegin, Name: name, Title: title, Syntax: protocol.SyntaxGitHub})
	case bytes.HasPrefix(l, ghEndGroup):
		s.marker(protocol.Msg{Type: protocol.TypeEnd, Syntax: protocol.SyntaxGitHub})
	}
}

var (
	glStart = []byte("section_start:")
	glEnd   = []byte("section_end:")
)

// gitlab handles GitLab's collapsible section markers,
//
//	section_start:<unix seconds>:<name>[<options>]\r\x1b[0K<header>
//	section_end:<unix seconds>:<name>\r\x1b[0K
//
// (docs.gitlab.com, "CI/CD job logs", custom collapsible sections). Names
// are made of letters, digits, '_', '.' and '-', as GitLab's log parser
// accepts. Options such as collapsed=true or hide_duration=true only change
// how GitLab shows the section and are skipped.
func (s *Scanner) gitlab(l []byte) {
	var typ protocol.Type
	switch {
	case bytes.HasPrefix(l, glStart):
		typ, l = protocol.TypeBegin, l[len(glStart):]
	case bytes.HasPrefix(l, glEnd):
		typ, l = protocol.TypeEnd, l[len(glEnd):]
	default:
		return
	}
	i := 0
	var sec int64
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		if sec < 1<<40 {
			sec = sec*10 + int64(l[i]-'0')
		}
		i++
	}
	if i == 0 || i == len(l) || l[i] != ':' {
		return
	}
	l = l[i+1:]
	i = 0
	for i < len(l) && isSectionNameByte(l[i]) {
		i++
	}
	if i == 0 {
		return
	}
	name := cleantext.Truncate(string(l[:i]), protocol.MaxNameBytes)
	l = l[i:]
	if len(l) > 0 && l[0] == '[' {
		end := bytes.IndexByte(l, ']')
		if end < 0 {
			return
		}
		l = l[end+1:]
	}
	// What follows must be the end of the line or the \r that GitLab's
	// marker puts before the header text.
	if len(l) > 0 && l[0] != '\r' && l[0] != 0x1b {
		return
	}
	m := protocol.Msg{Type: typ, Name: name, Syntax: protocol.SyntaxGitLab}
	if sec < 1<<40 {
		m.Time = time.Unix(sec, 0)
		// GitLab's markers carry whole seconds. A line read within the
		// second it names was printed now, to the nanosecond: a 200 ms
		// section must not come out as 0 or 1 s.
		if now := s.time(); !now.Before(m.Time) && now.Sub(m.Time) < time.Second {
			m.Time = now
		}
	}
	if typ == protocol.TypeBegin {
		m.Title = s.clean(l, protocol.MaxNameBytes)
		if m.Title == "" {
			m.Title = name
		}
	}
	s.marker(m)
}

func isSectionNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// patterns matches l against the user's patterns.
func (s *Scanner) patterns(l []byte) {
	l = trimCR(l)
	if bytes.IndexByte(l, 0x1b) >= 0 {
		s.scratch = stripANSI(s.scratch[:0], l)
		l = s.scratch
	}
	if s.anyFold {
		s.lower = asciiLower(s.lower[:0], l)
	}
	var text string // the line attribute, made once per line
	for i, p := range s.opts.Patterns {
		if p.Regexp == nil || !s.filters[i].mayMatch(l, s.lower) || !p.Regexp.Match(l) {
			continue
		}
		s.st.PatternHits++
		if p.Event != "" {
			if text == "" {
				text = lineText(l)
			}
			s.send(protocol.Msg{
				Type:   protocol.TypeEvent,
				Name:   p.Event,
				Attrs:  []attribute.KeyValue{attribute.String(LineAttr, text)},
				Syntax: protocol.SyntaxPattern,
			})
		}
		if p.Counter != "" {
			s.send(protocol.Msg{Type: protocol.TypeCounter, Name: p.Counter, Value: 1, Syntax: protocol.SyntaxPattern})
		}
	}
}

// lineText makes the jobtrace.line attribute: valid UTF-8, at most
// MaxLineAttrBytes.
func lineText(l []byte) string {
	if len(l) > MaxLineAttrBytes+utf8.UTFMax {
		l = l[:MaxLineAttrBytes+utf8.UTFMax]
	}
	return cleantext.Truncate(cleantext.Bytes(l), MaxLineAttrBytes)
}
