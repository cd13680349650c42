package spool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/internal/safefile"
)

const (
	// TracesFile is the name of the span spool inside the output directory.
	TracesFile = "spans.otlp.jsonl"
	// SentSuffix is appended to the spool's path to name the file that holds
	// the byte offset up to which lines were delivered to a collector.
	SentSuffix = ".sent"
	// RejectedSuffix is appended to the spool's path to name the file that
	// keeps, in the spool's format, the lines a collector rejected as
	// invalid: they are not sent again, but kept for a user to look at.
	RejectedSuffix = ".rejected"
	// UncertainSuffix is appended to the spool's path to name the file
	// that holds the end offset of the lines, not yet delivered, whose last
	// upload was abandoned at its deadline: the collector may have them.
	UncertainSuffix = ".uncertain"
)

// ErrClosed is returned by a write after Stop.
var ErrClosed = errors.New("spool: client stopped")

// TraceClient appends each batch of spans (from the span processor, or
// AppendTraces) as one line of OTLP/JSON to a file.
//
// The file is opened with O_APPEND|O_CREATE (mode 0644), never through a
// symbolic link, on the first write,
// so a missing output directory is reported by that write and tried again by
// the next one. Each line is written with a single write call and no fsync:
// the page cache survives a crash of the agent, which is the failure this file
// is for.
type TraceClient struct {
	path string

	mu       sync.Mutex
	f        *os.File
	end      int64
	stopped  bool
	onAppend func(endOffset int64, spans int)
}

// NewTraceClient returns a client that appends to path.
func NewTraceClient(path string) *TraceClient {
	return &TraceClient{path: path}
}

// Path returns the file the client appends to.
func (c *TraceClient) Path() string { return c.path }

// OnAppend sets fn to be called after each line is written, with the offset
// just past the line and the number of spans in it. fn is called while the
// client holds its lock, so it must not block and must not call back into the
// client; a forwarder's Notify fits.
func (c *TraceClient) OnAppend(fn func(endOffset int64, spans int)) {
	c.mu.Lock()
	c.onAppend = fn
	c.mu.Unlock()
}

// Stop closes the file. Later writes return ErrClosed.
func (c *TraceClient) Stop(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// appendLine appends one encoded line of n spans, newline included, with a
// single write.
func (c *TraceClient) appendLine(line []byte, n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrClosed
	}
	if c.f == nil {
		if err := c.open(); err != nil {
			return err
		}
	}
	w, err := c.f.Write(line)
	if err != nil {
		// A line that partly reached a full disk is cut off again.
		c.end = safefile.CutTorn(c.f, c.end, int64(w))
		return fmt.Errorf("spool: write %s: %w", c.path, errno(err))
	}
	c.end += int64(w)
	if c.onAppend != nil {
		c.onAppend(c.end, n)
	}
	return nil
}

// open opens the file for appending, refusing a symbolic link, a FIFO or a
// hard link at the path (package safefile). When an earlier run died in the
// middle of a write, the file ends without a newline; a newline is added
// first so the next line is not glued to the torn one.
func (c *TraceClient) open() error {
	f, err := safefile.Open(c.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	size, err := endsTorn(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("spool: %w", err)
	}
	if size < 0 {
		n, err := f.Write([]byte{'\n'})
		if err != nil {
			f.Close()
			return fmt.Errorf("spool: write %s: %w", c.path, errno(err))
		}
		size = -size + int64(n)
	}
	c.f = f
	c.end = size
	return nil
}

// Relink writes the spool again at its path when it was removed while the
// client held it open (safefile.Relink: the job removed the out dir, or
// the file): the lines written so far are copied to a new file, and the
// lines that follow are appended to it. It reports whether it did.
func (c *TraceClient) Relink() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return false, nil
	}
	f, relinked, err := safefile.Relink(c.f, c.path, os.O_RDWR|os.O_APPEND, 0o644, c.end)
	if err != nil {
		return false, fmt.Errorf("spool: %w", err)
	}
	c.f = f
	return relinked, nil
}

// errno drops the operation and path of a *PathError: the message names the
// spool once.
func errno(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// endsTorn returns the size of f, negated when the file is not empty and does
// not end with a newline.
func endsTorn(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil && err != io.EOF {
		return 0, err
	}
	if last[0] != '\n' {
		return -size, nil
	}
	return size, nil
}

// AppendTraces appends the spans of td to the file as one line, in pdata's
// own JSON encoding (a line read from a spool, written again as it was read).
func (c *TraceClient) AppendTraces(td ptrace.Traces) error {
	n := td.SpanCount()
	if n == 0 {
		return nil
	}
	line, err := marshalLine(td)
	if err != nil {
		return err
	}
	return c.appendLine(line, n)
}
