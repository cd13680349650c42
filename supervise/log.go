package supervise

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/redact"
	"github.com/jobtrace/jobtrace/internal/warnlimit"
)

// MaxWarnings is how many warnings jobtrace prints in full in one run;
// beyond it they are counted (warnlimit), so a flood of bad markers cannot
// flood the job's log.
const MaxWarnings = 50

// Logger writes jobtrace's own messages, one line each with a "jobtrace:"
// prefix, to stderr through the same gate as the job's stderr (or to a log
// file). Every message is masked by redact.String (an error that wraps the
// collector's URL or echoes a header prints no credential) and is always
// one line, whatever it holds: see Line.
type Logger struct {
	out      func([]byte)
	warn     func(string) // where warnings go instead, when set
	warnings *warnlimit.Limiter
}

// NewLogger returns a Logger that writes to w.
func NewLogger(w io.Writer) *Logger {
	l := &Logger{out: func(b []byte) { w.Write(b) }}
	if g, ok := w.(*Gate); ok {
		l.out = g.message
	}
	l.warnings = warnlimit.New("", l.warning, MaxWarnings)
	return l
}

// NewWarnLogger returns a Logger that writes its messages to w and hands
// its warnings to warn instead, each masked and one line as a message is,
// and limited as Warn says: a program that embeds jobtrace and decides
// where problems go.
func NewWarnLogger(w io.Writer, warn func(msg string)) *Logger {
	l := NewLogger(w)
	l.warn = warn
	return l
}

// Printf writes one message.
func (l *Logger) Printf(format string, args ...any) {
	l.out([]byte("jobtrace: " + Line(redact.String(fmt.Sprintf(format, args...))) + "\n"))
}

// Line makes msg one line of a terminal: the line breaks inside it (an
// error joined from several) become "; ", and every other control
// character, escape sequences' ESC included, and invalid UTF-8 become
// U+FFFD (cleantext.String). Text from the job is cleaned where it comes
// in; this is the second line of defence, for file names, errors of the
// system and anything else a message quotes.
func Line(msg string) string {
	msg = strings.TrimRight(msg, "\r\n")
	if strings.ContainsAny(msg, "\r\n") {
		msg = lineBreaks.Replace(msg)
	}
	return cleantext.String(msg)
}

var lineBreaks = strings.NewReplacer("\r\n", "; ", "\n", "; ", "\r", "; ")

// Block writes lines that jobtrace laid out itself (the summary), each
// cleaned as Line does.
func (l *Logger) Block(b []byte) {
	var out bytes.Buffer
	for _, ln := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out.WriteString(cleantext.String(ln))
		out.WriteByte('\n')
	}
	l.out(out.Bytes())
}

// Warn writes one warning, or counts it once MaxWarnings were written.
func (l *Logger) Warn(msg string) { l.warnings.Warn(msg) }

// FlushWarnings writes how many warnings were counted and not written
// since the last count it wrote, if any.
func (l *Logger) FlushWarnings() { l.warnings.Flush() }

func (l *Logger) warning(msg string) {
	if l.warn != nil {
		l.warn(Line(redact.String(msg)))
		return
	}
	l.out([]byte("jobtrace: warning: " + Line(redact.String(msg)) + "\n"))
}
