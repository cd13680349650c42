package usagecsv

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/safefile"
)

// FileName is the name of the file in the output directory.
const FileName = "resource-usage.csv"

// MaxLineBytes bounds one line of the file read back (package runmodel). A
// row jobtrace writes is 150 to 300 bytes plus the phase's own name, which
// every source bounds at protocol.MaxNameBytes (256 bytes): a longer line is
// not jobtrace's, and reading stops there instead of holding it.
const MaxLineBytes = 1 << 20

// DefaultMaxBytes bounds the file when Options.MaxBytes is 0. A row is 150
// to 300 bytes, so at one sample a second the bound lasts ten days or more:
// it is there so that a job that never ends cannot fill the disk.
const DefaultMaxBytes = 256 << 20

// Options configure a Writer.
type Options struct {
	// Phase returns the active phase at the time of the row: the innermost
	// open phase, the zero Phase outside any. Nil means the phase columns
	// stay empty.
	Phase func() Phase
	// Warn receives one line per problem, each said once: the first write
	// error, the size bound reached. Nil drops them.
	Warn func(string)
	// MaxBytes bounds the size of the file, header included; 0 means
	// DefaultMaxBytes and a negative value no bound. When a row would make
	// the file pass it, that row and all later ones are not written, Warn
	// is called once, and Dropped counts them.
	MaxBytes int64
	// Tee, when set, is given the header and then each row, as written
	// to the file, once it is there (a row lost to a write error or past
	// MaxBytes is not given): what reads the rows of a run in memory
	// reads what the file holds. Its Write is called with the Writer's
	// lock held and must not keep p; its errors are ignored.
	Tee io.Writer
}

// Phase is the active phase of a row: its own name, not the names of the
// phases around it, so that a row costs the same however deep the phase
// is; its span id ties it to the span, and to its parents, in
// spans.otlp.jsonl.
type Phase struct {
	Name   string
	SpanID string // 16 hex digits
	Depth  int    // 1 for a phase directly under the job, 0 outside any phase
}

// file is what a Writer needs of its file; *os.File in use, a fake in tests.
type file interface {
	io.WriteSeeker
	Truncate(size int64) error
	Close() error
}

// Writer writes one row per sample to the CSV file. It is a
// hostmetrics.Sink. Its methods may be called from any goroutine.
type Writer struct {
	path string
	opts Options

	mu      sync.Mutex
	f       file // nil once closed
	size    int64
	rows    int
	dropped int
	stopped bool // no more rows: the bound was reached, or the file is damaged
	warned  bool // a write error was reported
	buf     []byte
	row     row
	prev    hostmetrics.Sample // the sample of the last row written
	hasPrev bool
	// marks are the columns' (mark), as the rows written left them; next
	// are those of the row being written, which replace them once it is.
	marks, next []mark
	// hostCPU and jobCPU are host_cpu_pct's and job_cpu_pct's spans, as
	// the rows written left them; hostCPUNext and jobCPUNext those of the
	// row being written.
	hostCPU, hostCPUNext usage.HostCPU
	jobCPU, jobCPUNext   usage.JobCPU
	start                time.Time
}

var _ hostmetrics.Sink = (*Writer)(nil)

// Create creates the file at path (or truncates it) and writes the header
// at once. A symbolic link, a FIFO or a hard link at path is refused
// (package safefile). The agent passes filepath.Join(outDir, FileName).
func Create(path string, opts Options) (*Writer, error) {
	// Read and write: Relink copies what was written.
	f, err := safefile.Open(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("usagecsv: %w", err)
	}
	w, err := newWriter(f, path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func newWriter(f file, path string, opts Options) (*Writer, error) {
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	w := &Writer{path: path, opts: opts, f: f, buf: make([]byte, 0, 1024),
		marks: make([]mark, len(columns)), next: make([]mark, len(columns))}
	h := w.buf
	for i := range columns {
		if i > 0 {
			h = append(h, ',')
		}
		h = append(h, columns[i].Name...)
	}
	h = append(h, '\n')
	n, err := f.Write(h)
	if err != nil {
		return nil, fmt.Errorf("usagecsv: write %s: %w", path, err)
	}
	w.size = int64(n)
	if opts.Tee != nil {
		opts.Tee.Write(h)
	}
	w.buf = h[:0]
	return w, nil
}

// Sample formats one row from s and writes it with a single write call.
//
// The changes of a row are taken against the last row written that read
// the figure, not the last sample seen: when a row is lost to a write
// error, or a figure could not be read, the next row that has it covers
// that span too, and a column's sum stays the total.
//
// Phase and Warn are called without the Writer's lock held, so they may
// call the Writer's methods.
func (w *Writer) Sample(s *hostmetrics.Sample) {
	var phase Phase
	if w.opts.Phase != nil {
		phase = w.opts.Phase()
	}
	w.mu.Lock()
	msg := w.write(s, phase)
	w.mu.Unlock()
	if msg != "" && w.opts.Warn != nil {
		w.opts.Warn(msg)
	}
}

// write formats and writes the row of s. It returns a problem to report,
// or "".
func (w *Writer) write(s *hostmetrics.Sample, phase Phase) string {
	if w.f == nil || w.stopped {
		w.dropped++
		return ""
	}
	r := &w.row // kept in the Writer: a row on the stack would escape through the cells
	*r = row{cur: s, start: w.start, phase: phase}
	if w.hasPrev {
		r.prev = &w.prev
	}
	copy(w.next, w.marks)
	w.hostCPUNext, w.jobCPUNext = w.hostCPU, w.jobCPU
	r.hostCPU, r.jobCPU = &w.hostCPUNext, &w.jobCPUNext
	b := w.buf[:0]
	for i := range columns {
		if i > 0 {
			b = append(b, ',')
		}
		r.mark = &w.next[i]
		b = columns[i].cell(b, r)
	}
	b = append(b, '\n')
	w.buf = b
	*r = row{} // keep no reference to the caller's sample

	if w.opts.MaxBytes > 0 && w.size+int64(len(b)) > w.opts.MaxBytes {
		w.stopped = true
		w.dropped++
		return fmt.Sprintf("%s reached its bound of %d bytes (%s); later rows are not written", w.path, w.opts.MaxBytes, sizeText(w.opts.MaxBytes))
	}
	n, err := w.f.Write(b)
	if err != nil {
		return w.failed(n, err)
	}
	w.size += int64(n)
	w.rows++
	if w.opts.Tee != nil {
		w.opts.Tee.Write(b)
	}
	if !w.hasPrev {
		w.start = s.Time
	}
	// Only the fields the columns read are kept: the per-device slices
	// are left out, so keeping a sample copies no slice and allocates
	// nothing.
	w.prev = *s
	w.prev.Host.Disks, w.prev.Host.Ifaces = nil, nil
	w.hasPrev = true
	w.marks, w.next = w.next, w.marks
	w.hostCPU, w.jobCPU = w.hostCPUNext, w.jobCPUNext
	return ""
}

// failed handles a row that could not be written and returns the problem to
// report, if it is a new one. A part of the row may have reached the file:
// the file is cut back to its last whole row, so that a reader never sees a
// broken row, and later rows are tried again (a full disk may get room). If
// the file cannot be cut back, rows stop.
func (w *Writer) failed(n int, err error) string {
	w.dropped++
	if n > 0 {
		if terr := w.f.Truncate(w.size); terr != nil {
			w.stopped = true
			return fmt.Sprintf("write %s: %v; the file ends in a partial row and later rows are not written", w.path, err)
		}
		if _, serr := w.f.Seek(w.size, io.SeekStart); serr != nil {
			w.stopped = true
			return fmt.Sprintf("write %s: %v; later rows are not written", w.path, err)
		}
	}
	if w.warned {
		return ""
	}
	w.warned = true
	return fmt.Sprintf("write %s: %v; rows are missing from the file", w.path, err)
}

// Rows returns the number of rows written, the header not counted.
func (w *Writer) Rows() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rows
}

// Dropped returns the number of samples whose row was not written: past
// the size bound, lost to a write error, or given after Close.
func (w *Writer) Dropped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Close closes the file. Rows are already written: there is nothing to
// flush. Calling Close again does nothing.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("usagecsv: close %s: %w", w.path, err)
	}
	return nil
}

// Relink writes the file again at its path when it was removed while the
// Writer held it open (safefile.Relink: the job removed the out dir, or
// the file): the rows written so far are copied to a new file, and the
// rows that follow are written to it. It reports whether it did.
func (w *Writer) Relink() (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, ok := w.f.(*os.File)
	if !ok {
		return false, nil
	}
	f, relinked, err := safefile.Relink(f, w.path, os.O_RDWR, 0o644, w.size)
	if err != nil {
		return false, fmt.Errorf("usagecsv: %w", err)
	}
	w.f = f
	return relinked, nil
}

// sizeText writes a size in the largest binary unit that divides it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
