package markerdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jobtrace/jobtrace/internal/warnlimit"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// Defaults for Options fields left at zero.
const (
	// DefaultInterval is the poll period. Phases shorter than this still
	// get their own timestamps if the writer sets "ts"; without it, a
	// begin or end is at most this late.
	DefaultInterval = 200 * time.Millisecond
	// DefaultMaxFiles bounds the files followed at once: one per writing
	// process is the intended use, and a job with more than a thousand
	// marker-writing processes alive at once is a runaway loop.
	DefaultMaxFiles = 1024
	// DefaultMaxDroppedBytes bounds what the Reader reads that it cannot
	// turn into messages (lines too long, malformed or blank), over its
	// life. A file of a terabyte that is one hole (truncate -s 1T) costs
	// its writer nothing and reads as zeros without a newline: one line,
	// skipped to its end, read for half an hour. Past the bound, a file
	// that yields more of it is no longer read; the files of markers go
	// on. Reading 64 MiB takes a tenth of a second, and markers are a few
	// hundred bytes a line: no job drops that much by mistake.
	DefaultMaxDroppedBytes = 64 << 20
	// DefaultFinalTimeout bounds how long Final reads: the end of the job
	// waits for the marker dir at most this long. A process of the job
	// writing markers faster than they are read (`yes MARKER >> file`,
	// a gigabyte a second) leaves a backlog that would take a minute;
	// what is not read by then is counted (Stats.UnreadBytes) and said.
	// Markers a job writes by the thousand take milliseconds.
	DefaultFinalTimeout = time.Second
)

// Suffix is the file name ending the Reader reads.
const Suffix = ".jsonl"

// maxIgnored bounds the names of ignored files remembered so that each is
// reported once; a directory filled with junk cannot grow the map further.
const maxIgnored = 4096

// Options tunes a Reader. Zero fields take the defaults above.
type Options struct {
	Interval        time.Duration
	MaxFiles        int
	MaxMessageBytes int
	MaxDroppedBytes int64
	FinalTimeout    time.Duration
	Warn            func(string) // nil: warnings are only counted
}

// Stats counts what a Reader saw.
type Stats struct {
	Files        uint64 // .jsonl files followed
	Messages     uint64 // messages passed to the handler
	Rejected     uint64 // malformed lines dropped
	TooLong      uint64 // lines over MaxMessageBytes dropped
	IgnoredFiles uint64 // entries not followed: wrong name, not a regular file, over MaxFiles, given up (over MaxDroppedBytes)
	UnreadBytes  uint64 // bytes left unread by Final at FinalTimeout
}

// file is what the Reader knows of one followed file.
type file struct {
	off      int64       // bytes consumed: up to the end of the last complete line
	size     int64       // size at the last read, to skip unchanged files
	line     int         // lines consumed, for warnings
	skipping bool        // inside a line over the limit, dropping up to its newline
	longHead []byte      // while skipping: the start of that line, for the warning
	longSize int64       // while skipping: its bytes so far
	info     os.FileInfo // identity of the file read, to notice a replaced one
	seen     uint64      // poll generation that last listed it
}

// Reader follows the *.jsonl files of one directory.
type Reader struct {
	dir      string
	h        func(protocol.Msg)
	interval time.Duration
	maxFiles int
	maxMsg   int
	warn     *warnlimit.Limiter

	maxDropped int64
	dropped    int64 // bytes read that were not messages

	finalTimeout time.Duration
	// stop, when it returns true, ends the read in progress: the context
	// of Run is done, or Final's time is up.
	stop func() bool

	files   map[string]*file
	ignored map[string]uint64 // name → poll generation that last listed it
	gen     uint64
	buf     []byte
	dirErr  bool // the directory could not be read at the last poll

	nFiles, messages, rejected, tooLong, nIgnored, unread atomic.Uint64
}

// New returns a Reader of dir that passes each message to h. Run, Final
// and h all run on the caller's goroutine, one at a time.
func New(dir string, h func(m protocol.Msg), opts Options) *Reader {
	r := &Reader{
		dir:          dir,
		h:            h,
		interval:     opts.Interval,
		maxFiles:     opts.MaxFiles,
		maxMsg:       opts.MaxMessageBytes,
		maxDropped:   opts.MaxDroppedBytes,
		finalTimeout: opts.FinalTimeout,
		stop:         func() bool { return false },
		warn:         warnlimit.New("marker dir: ", opts.Warn, warnlimit.DefaultVerbatim),
		files:        make(map[string]*file),
		ignored:      make(map[string]uint64),
	}
	if r.interval <= 0 {
		r.interval = DefaultInterval
	}
	if r.maxFiles <= 0 {
		r.maxFiles = DefaultMaxFiles
	}
	if r.maxMsg <= 0 {
		r.maxMsg = protocol.DefaultMaxMessageBytes
	}
	if r.finalTimeout <= 0 {
		r.finalTimeout = DefaultFinalTimeout
	}
	if r.maxDropped <= 0 {
		r.maxDropped = DefaultMaxDroppedBytes
	}
	// Room for one whole line plus more, so that each read makes progress.
	r.buf = make([]byte, r.maxMsg+1+32<<10)
	return r
}

// Run polls the directory every Interval until ctx is done; a read in
// progress then stops at the end of the chunk it is in, the rest left for
// Final.
func (r *Reader) Run(ctx context.Context) {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	r.stop = func() bool { return ctx.Err() != nil }
	defer func() { r.stop = func() bool { return false } }()
	for {
		r.poll(false)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Final reads everything once more, last lines without a newline included,
// for at most FinalTimeout, and reports suppressed warnings. What it has
// not read by then is counted in Stats.UnreadBytes and said. Call it after
// Run has returned.
func (r *Reader) Final() {
	deadline := time.Now().Add(r.finalTimeout)
	r.stop = func() bool { return time.Now().After(deadline) }
	before := r.unread.Load()
	r.poll(true)
	r.stop = func() bool { return false }
	if n := r.unread.Load() - before; n > 0 {
		r.warn.Warnf("%d bytes of markers were not read: the end of the job reads the marker dir for at most %v (a process writes markers faster than they are read)", n, r.finalTimeout)
	}
	r.warn.Flush()
}

// Stats returns the counts so far; it may be called from any goroutine.
func (r *Reader) Stats() Stats {
	return Stats{
		Files:        r.nFiles.Load(),
		Messages:     r.messages.Load(),
		Rejected:     r.rejected.Load(),
		TooLong:      r.tooLong.Load(),
		IgnoredFiles: r.nIgnored.Load(),
		UnreadBytes:  r.unread.Load(),
	}
}

func (r *Reader) poll(final bool) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		if !r.dirErr {
			r.warn.Warnf("%v", err)
		}
		r.dirErr = true
		return
	}
	r.dirErr = false
	r.gen++
	// Forget entries that are gone first, so that their places count as
	// free; a new file of the same name starts anew.
	for _, e := range entries {
		name := e.Name()
		if f := r.files[name]; f != nil {
			f.seen = r.gen
		} else if _, ok := r.ignored[name]; ok {
			r.ignored[name] = r.gen
		}
	}
	for name, f := range r.files {
		if f.seen != r.gen {
			delete(r.files, name)
		}
	}
	for name, g := range r.ignored {
		if g != r.gen {
			delete(r.ignored, name)
		}
	}
	for _, e := range entries {
		name := e.Name()
		f := r.files[name]
		if f == nil {
			if _, ok := r.ignored[name]; ok {
				continue
			}
			if why := r.check(e); why != "" {
				r.ignore(name, why)
				continue
			}
			f = &file{seen: r.gen}
			r.files[name] = f
			r.nFiles.Add(1)
		}
		r.follow(name, e, f, final)
	}
}

// check returns why a new directory entry is not followed, or "".
func (r *Reader) check(e fs.DirEntry) string {
	switch t := e.Type(); {
	case !strings.HasSuffix(e.Name(), Suffix):
		return "not a " + Suffix + " file"
	case t&fs.ModeSymlink != 0:
		// Links are not followed: one could point anywhere the agent can
		// read, and its contents would end up in exported telemetry.
		return "a symbolic link"
	case t.IsDir():
		return "a directory"
	case !t.IsRegular():
		return "not a regular file"
	case len(r.files) >= r.maxFiles:
		return "over the limit of files followed at once"
	}
	return ""
}

func (r *Reader) ignore(name, why string) {
	if len(r.ignored) >= maxIgnored {
		return
	}
	r.ignored[name] = r.gen
	r.nIgnored.Add(1)
	r.warn.Warnf("ignoring %q: %s", name, why)
}

// follow reads what was appended to one file since the last poll.
func (r *Reader) follow(name string, e fs.DirEntry, f *file, final bool) {
	if r.stop() {
		if li, err := e.Info(); final && err == nil && li.Size() > f.off {
			r.unread.Add(uint64(li.Size() - f.off))
		}
		return
	}
	if !final && f.info != nil {
		// Unchanged size: nothing to read. The listing's information is
		// cheap (lstat, or none at all on Windows) next to an open.
		if li, err := e.Info(); err == nil && li.Size() == f.size {
			return
		}
	}
	fh, err := openNoFollow(filepath.Join(r.dir, name))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.warn.Warnf("%s: %v", name, err)
		}
		return
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		r.warn.Warnf("%s: %v", name, err)
		return
	}
	if !info.Mode().IsRegular() {
		// Swapped for something else since the listing.
		delete(r.files, name)
		r.ignore(name, "not a regular file")
		return
	}
	switch {
	case f.info != nil && !os.SameFile(f.info, info):
		r.warn.Warnf("%s was replaced: reading it from the start", name)
		*f = file{seen: f.seen}
	case info.Size() < f.off:
		r.warn.Warnf("%s shrank from %d to %d bytes: reading it from the start", name, f.off, info.Size())
		*f = file{seen: f.seen}
	}
	f.info = info
	f.size = info.Size()
	r.read(name, fh, f, final)
}

// read consumes the complete lines after f.off up to f.size, the size the
// file had when it was opened for this read, and with final also a last
// line without newline. What is appended meanwhile waits for the next
// read: a writer as fast as the reader, or one that goes on after the job
// (a daemon of the job's), cannot keep one read going, nor the end of the
// job waiting on Final. Once the Reader has dropped maxDropped bytes, a
// file that yields more is no longer read (giveUp). When stop says so, the
// read ends where it is, at the end of a line; Final counts what is left.
func (r *Reader) read(name string, fh *os.File, f *file, final bool) {
	for {
		if r.stop() {
			if final && f.size > f.off {
				r.unread.Add(uint64(f.size - f.off))
			}
			return
		}
		buf := r.buf
		if left := f.size - f.off; left < int64(len(buf)) {
			buf = buf[:max(left, 0)]
		}
		n, err := 0, error(io.EOF)
		if len(buf) > 0 {
			n, err = fh.ReadAt(buf, f.off)
		}
		if err == nil && f.off+int64(n) >= f.size {
			err = io.EOF
		}
		data := buf[:n]
		pos := 0
		for {
			i := bytes.IndexByte(data[pos:], '\n')
			if i < 0 {
				break
			}
			line := data[pos : pos+i]
			pos += i + 1
			f.line++
			switch {
			case f.skipping:
				f.skipping = false
				r.warnLong(name, f.line, f.longHead, f.longSize+int64(len(line)))
				f.longHead = nil
			case len(line) > r.maxMsg:
				r.tooLong.Add(1)
				r.warnLong(name, f.line, line, int64(len(line)))
			case r.message(name, f.line, line):
				continue
			}
			if r.drop(len(line) + 1) {
				r.giveUp(name)
				return
			}
		}
		rest := data[pos:]
		drop := 0
		switch {
		case f.skipping:
			f.longSize += int64(len(rest))
			drop, pos = len(rest), n
		case len(rest) > r.maxMsg:
			// Counted now, said when its end is seen, with its real size.
			r.tooLong.Add(1)
			f.skipping = true
			f.longHead = append([]byte(nil), rest[:min(len(rest), protocol.ExcerptBytes)]...)
			f.longSize = int64(len(rest))
			drop, pos = len(rest), n
		case err != nil && final && len(rest) > 0:
			f.line++
			if !r.message(name, f.line, rest) {
				drop = len(rest)
			}
			pos = n
		}
		over := drop > 0 && r.drop(drop)
		if f.skipping && (over || err != nil && final) {
			// The line never ended, or is not read to its end: said with
			// what there is.
			r.warnLong(name, f.line+1, f.longHead, f.longSize)
		}
		if over {
			r.giveUp(name)
			return
		}
		f.off += int64(pos)
		if err != nil {
			if err != io.EOF {
				r.warn.Warnf("%s: %v", name, err)
			}
			return
		}
	}
}

// drop counts n bytes read that were not a message, and reports whether
// the Reader has now dropped more than maxDropped.
func (r *Reader) drop(n int) bool {
	r.dropped += int64(n)
	return r.dropped > r.maxDropped
}

// giveUp stops reading a file that yielded what is not messages once the
// Reader had dropped maxDropped bytes: it is ignored while it exists, as a
// file over MaxFiles is.
func (r *Reader) giveUp(name string) {
	delete(r.files, name)
	r.ignore(name, fmt.Sprintf("the marker dir has yielded over %d bytes that are not markers (limit): the rest of this file is not read", r.maxDropped))
}

// warnLong says that line n of name, of size bytes and starting with head,
// was longer than the bound and dropped.
func (r *Reader) warnLong(name string, n int, head []byte, size int64) {
	r.warn.Warnf("%s line %d: longer than %d bytes, dropped: %s", name, n, r.maxMsg, protocol.LongExcerpt(head, size))
}

// message passes line on as a message, and reports whether it was one.
func (r *Reader) message(name string, n int, line []byte) bool {
	if len(bytes.TrimSpace(line)) == 0 {
		return false
	}
	m, err := protocol.Parse(line)
	if err != nil {
		r.rejected.Add(1)
		r.warn.Warnf("%s line %d: %v: %s", name, n, err, protocol.Excerpt(line))
		return false
	}
	m.Syntax = protocol.SyntaxMarkerDir
	m.Ack = false
	r.messages.Add(1)
	r.h(m)
	return true
}
