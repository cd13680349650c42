package spool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/internal/regularfile"
	"github.com/jobtrace/jobtrace/internal/safefile"
)

var (
	// ErrParse marks a line that is complete but is not an OTLP/JSON request.
	ErrParse = errors.New("spool: malformed line")
	// ErrTorn marks a last line without its newline: the writer died in the
	// middle of it, or is still writing it.
	ErrTorn = errors.New("spool: torn last line")
	// ErrLineTooLong marks a line longer than MaxLineBytes, skipped unread.
	ErrLineTooLong = errors.New("spool: line too long")
)

// MaxLineBytes bounds one line of a spool read back. A line jobtrace writes
// holds at most MaxLineSpans spans, each bounded by the socket's message size
// (64 KiB) and the SDK's attribute limits: a few MiB at most. A longer line
// is not jobtrace's (or a file such as /dev/zero's contents put in its
// place): it is skipped and reported, so that reading holds at most this
// much of it.
const MaxLineBytes = 64 << 20

// LineError is a line ReadLines skipped. It wraps ErrParse, ErrTorn or
// ErrLineTooLong.
type LineError struct {
	Path   string
	Line   int   // counted from the offset reading started at; 1 is the first line read
	Offset int64 // byte offset of the start of the line
	Kind   error // ErrParse, ErrTorn or ErrLineTooLong
	Err    error // the decoder's error, nil for ErrTorn
}

func (e *LineError) Error() string {
	msg := fmt.Sprintf("%v: %s line %d (byte %d)", e.Kind, filepath.Base(e.Path), e.Line, e.Offset)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *LineError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// ReadLines reads the spool at path from byte offset from and calls fn with
// each complete line decoded once, from OTLP/JSON to pdata (the form the
// OTLP client sends as it is), the number of spans in it and the offset
// just past it.
//
// Lines that cannot be used are skipped and reported, never fatal: a malformed
// line as a *LineError wrapping ErrParse, and a last line without its newline
// as one wrapping ErrTorn (fn is not called for it, so a reader that keeps the
// last end offset reads it again once it is complete). The line errors are
// joined into the returned error. If fn returns an error, reading stops and
// that error is returned joined with the line errors so far. A missing file is an
// error wrapping fs.ErrNotExist.
func ReadLines(path string, from int64, fn func(td ptrace.Traces, spans int, end int64) error) error {
	var dec ptrace.JSONUnmarshaler
	return readRaw(path, from, func(body []byte, n int, start, end int64) (error, error) {
		td, err := unmarshalLine(&dec, body)
		if err != nil {
			return &LineError{Path: path, Line: n, Offset: start, Kind: ErrParse, Err: err}, nil
		}
		return nil, fn(td, td.SpanCount(), end)
	})
}

// errNotObject is the parse error of a line that is not one JSON object.
var errNotObject = errors.New("not one JSON object")

// unmarshalLine decodes one line of the spool, a JSON object, from OTLP/JSON
// to pdata. The OTLP decoder alone is lenient: it reads keys outside any
// object, values left out and what follows the object's end as spans, so a
// line is first checked to be one JSON object.
func unmarshalLine(dec *ptrace.JSONUnmarshaler, body []byte) (ptrace.Traces, error) {
	if len(body) == 0 || body[0] != '{' || !json.Valid(body) {
		return ptrace.Traces{}, errNotObject
	}
	return dec.UnmarshalTraces(body)
}

// readRaw reads the spool at path from byte offset from and calls fn with
// each complete, non-blank line (spaces trimmed), its number, and the
// offsets of its start and just past it. fn returns a line error (a line that
// could not be used) and an error that stops reading. A last line without
// its newline is reported as torn. The spool must be a regular file; a
// symbolic link is followed only inside its directory
// (regularfile.OpenIn).
func readRaw(path string, from int64, fn func(body []byte, n int, start, end int64) (bad, err error)) error {
	f, err := regularfile.OpenIn(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return fmt.Errorf("spool: %s: %w", path, err)
	}
	defer f.Close()
	if from > 0 {
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
	}

	var lineErrs []error
	r := bufio.NewReaderSize(f, 64<<10)
	off := from
	for n := 1; ; n++ {
		line, skipped, rerr := readLine(r, MaxLineBytes)
		start := off
		off += int64(len(line)) + skipped
		if rerr != nil && rerr != io.EOF {
			return errors.Join(append(lineErrs, fmt.Errorf("spool: read %s: %w", path, rerr))...)
		}
		if skipped > 0 {
			lineErrs = append(lineErrs, &LineError{Path: path, Line: n, Offset: start, Kind: ErrLineTooLong,
				Err: fmt.Errorf("%d bytes, more than the %d read", int64(len(line))+skipped, MaxLineBytes)})
			if rerr == io.EOF {
				return errors.Join(lineErrs...)
			}
			continue
		}
		if rerr == io.EOF {
			if len(line) > 0 {
				lineErrs = append(lineErrs, &LineError{Path: path, Line: n, Offset: start, Kind: ErrTorn})
			}
			return errors.Join(lineErrs...)
		}
		body := bytes.TrimSpace(line)
		if len(body) == 0 {
			continue
		}
		lineErr, err := fn(body, n, start, off)
		if lineErr != nil {
			lineErrs = append(lineErrs, lineErr)
		}
		if err != nil {
			return errors.Join(append(lineErrs, err)...)
		}
	}
}

// LineErrors returns the *LineError values inside err, which may be a joined
// error as returned by ReadLines.
func LineErrors(err error) []*LineError {
	var out []*LineError
	var walk func(error)
	walk = func(err error) {
		if le, ok := err.(*LineError); ok {
			out = append(out, le)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// ReadSent returns the offset recorded next to the spool at path (in
// path+SentSuffix): how far lines were delivered. A missing file means 0,
// and so does a symbolic link, a FIFO or any file that is not a regular
// one with one link (package safefile): it is not jobtrace's, and sending
// a line twice is better than not at all. WriteSent replaces it.
func ReadSent(path string) (int64, error) {
	return readOffset(path + SentSuffix)
}

// ReadUncertain returns the offset recorded in path+UncertainSuffix: the
// lines of the spool that end at or before it, and were not delivered, were
// in an upload abandoned at its deadline, which the collector may have
// taken. A missing file means 0: none.
func ReadUncertain(path string) (int64, error) {
	return readOffset(path + UncertainSuffix)
}

// WriteUncertain records off in path+UncertainSuffix as WriteSent does; 0
// removes the file.
func WriteUncertain(path string, off int64) error {
	if off == 0 {
		if err := os.Remove(path + UncertainSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("spool: %w", err)
		}
		return nil
	}
	if err := safefile.WriteFile(path+UncertainSuffix, []byte(strconv.FormatInt(off, 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

func readOffset(name string) (int64, error) {
	data, err := readSmall(name, maxSentBytes)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, safefile.ErrSymlink) ||
		errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrLinked) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("spool: %w", err)
	}
	off, err := parseSent(data)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrParse, name, err)
	}
	return off, nil
}

// maxSentBytes bounds what is read of a .sent file: one decimal offset.
const maxSentBytes = 64

// readSmall reads at most max bytes of the regular file at path without
// following a link there.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := safefile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

func parseSent(data []byte) (int64, error) {
	s := strings.TrimSpace(string(data))
	off, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("negative offset %d", off)
	}
	return off, nil
}

// WriteSent records off next to the spool at path (in path+SentSuffix). The
// file is replaced atomically (written under a temporary name, then renamed)
// and a symbolic link there is replaced, not followed (safefile.WriteFile).
func WriteSent(path string, off int64) error {
	if err := safefile.WriteFile(path+SentSuffix, []byte(strconv.FormatInt(off, 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// readLine reads one line with its newline, as bufio.Reader.ReadBytes does,
// but keeps at most max bytes of it: past that it reads on to the newline,
// counts what it passed over in skipped and returns no line.
func readLine(r *bufio.Reader, max int) (line []byte, skipped int64, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if skipped > 0 || len(line)+len(frag) > max {
			skipped += int64(len(line)) + int64(len(frag))
			line = nil
		} else {
			line = append(line, frag...)
		}
		if err != bufio.ErrBufferFull {
			return line, skipped, err
		}
	}
}
