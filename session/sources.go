package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/markerdir"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/spans/socket"
)

// markersName is the name of the marker dir in the private directory.
const markersName = "markers"

// sources are the socket and the marker dir.
type sources struct {
	dir    string
	lock   io.Closer // held while the run lives (see newPrivateDir)
	bin    string    // the directory of this binary, named jobtrace
	server *socket.Server
	served chan struct{}
	reader *markerdir.Reader
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// startSources makes a private directory for the socket and the marker
// dir, starts reading them, and adds their paths to env.
func startSources(o Settings, h func(protocol.Msg) protocol.Reply, log Logger, env map[string]string) (*sources, error) {
	s := &sources{}
	if !o.Socket && !o.MarkerDir {
		return s, nil
	}
	dir, lock, removed, err := makePrivateDir()
	switch {
	case removed == 1:
		log.Printf("removed the private directory of a jobtrace run that was killed")
	case removed > 1:
		log.Printf("removed the private directories of %d jobtrace runs that were killed", removed)
	}
	if err != nil {
		return s, fmt.Errorf("no socket or marker dir for the job: %v", err)
	}
	s.dir, s.lock = dir, lock // MkdirTemp makes it 0700: private to the job's user
	var errs []error
	if o.Socket {
		path := filepath.Join(dir, "sock")
		srv, err := socket.Listen(path, socket.Handler(h), socket.Options{
			MaxConns: o.MaxSocketConns, MaxMessageBytes: o.MaxMessageBytes, Warn: log.Warn,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("no socket for the job: %v", err))
		} else {
			s.server = srv
			s.served = make(chan struct{})
			go func() { defer close(s.served); srv.Serve() }()
			env[EnvSocket] = path
		}
	}
	if o.MarkerDir {
		md := filepath.Join(dir, markersName)
		if err := os.Mkdir(md, 0o700); err != nil {
			errs = append(errs, fmt.Errorf("no marker dir for the job: %v", err))
		} else {
			s.reader = markerdir.New(md, func(m protocol.Msg) { h(m) }, markerdir.Options{
				MaxFiles: o.MaxMarkerFiles, MaxMessageBytes: o.MaxMessageBytes, Warn: log.Warn,
			})
			ctx, cancel := context.WithCancel(context.Background())
			s.cancel = cancel
			s.done = make(chan struct{})
			go func() { defer close(s.done); s.reader.Run(ctx) }()
			env[EnvMarkerDir] = md
		}
	}
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "jobtrace" {
		// 'jobtrace phase|event|exec' work inside the job even when
		// jobtrace is not installed on PATH (go run, a binary in the
		// workspace): the directory of this very binary is put at the
		// end of PATH, so an installed jobtrace still wins.
		s.bin = filepath.Dir(exe)
	}
	return s, errors.Join(errs...)
}

// makePrivateDir makes the job's private directory (mode 0700) in
// $XDG_RUNTIME_DIR, the per-user home of sockets, else in /dev/shm where it
// exists, else in the temporary directory. The first two are in memory,
// which matters: creating and removing the socket and the marker dir on a
// disk costs about a millisecond per job on a virtual machine, on a tmpfs a
// few microseconds.
//
// A parent is only used when nobody else can move or replace what is made
// in it: $XDG_RUNTIME_DIR must be the user's own private directory, the
// others owned by the user or root and sticky when open to others
// (safefile.SafeParent). The new directory is checked to be the user's and
// private after it is made. It is locked while the run lives; the private
// directories that dead runs left in the same parent are removed (see
// newPrivateDir).
func makePrivateDir() (dir string, lock io.Closer, removed int, err error) {
	var errs []error
	try := func(parent string, check func(string) error) bool {
		if err := check(parent); err != nil {
			errs = append(errs, err)
			return false
		}
		var n int
		var err error
		dir, lock, n, err = newPrivateDir(parent)
		removed += n
		if err == nil {
			err = safefile.CheckPrivate(dir)
			if err == nil {
				return true
			}
			lock.Close()
			os.Remove(dir)
		}
		errs = append(errs, err)
		return false
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		if try(x, safefile.CheckPrivate) {
			return dir, lock, removed, nil
		}
	}
	if _, err := os.Stat("/dev/shm"); err == nil {
		if try("/dev/shm", safefile.SafeParent) {
			return dir, lock, removed, nil
		}
	}
	if try(os.TempDir(), safefile.SafeParent) {
		return dir, lock, removed, nil
	}
	return "", nil, removed, errors.Join(errs...)
}

func appendPath(path, dir string) string {
	if path == "" {
		return dir
	}
	return path + string(os.PathListSeparator) + dir
}

// stop reads what is left in the sources, then removes their directory.
func (s *sources) stop() {
	s.once.Do(func() {
		if s.server != nil {
			s.server.Close()
			<-s.served
		}
		if s.reader != nil {
			s.cancel()
			<-s.done
			s.reader.Final()
		}
		if s.dir != "" {
			removePrivateDir(s.dir)
			s.lock.Close()
		}
	})
}

// removePrivateDir removes the private directory of a run. Most runs leave
// it with an empty marker dir and nothing else (the socket is removed by
// the server as it closes): two rmdirs remove it, where os.RemoveAll would
// first read both directories; whatever else was left there (markers
// written after the last scan) is removed by os.RemoveAll.
func removePrivateDir(dir string) {
	os.Remove(filepath.Join(dir, markersName))
	if os.Remove(dir) != nil {
		os.RemoveAll(dir)
	}
}

// statsAttrs reports on the job span what the sources dropped at a bound,
// warns about it, adds what was not turned into spans to the
// jobtrace.dropped metric, and returns the phrases for the summary.
func (s *sources) statsAttrs(out, errs *scan.Scanner, t *spans.Tracker, lostOutput uint64, log Logger, meter metric.Meter) ([]attribute.KeyValue, []string) {
	long := out.Stats().LongLines + errs.Stats().LongLines
	attrs := []attribute.KeyValue{}
	var lost []string
	dropped, err := usagemetrics.NewDropped(meter)
	if err != nil {
		log.Warn(fmt.Sprintf("no jobtrace.dropped metric: %v", err))
	}
	add := func(key string, n uint64, what, short string) {
		if n == 0 {
			return
		}
		attrs = append(attrs, attribute.Int64(key, int64(n)))
		log.Printf("%d %s", n, what)
		if short != "" {
			lost = append(lost, fmt.Sprintf("%d %s", n, short))
			if dropped != nil {
				dropped.Add(context.Background(), int64(n), metric.WithAttributes(
					usagemetrics.AttrDroppedWhat.String(strings.TrimPrefix(key, "jobtrace.dropped."))))
			}
		}
	}
	add("jobtrace.dropped.output_bytes", lostOutput, "bytes of the job's output could not be written to jobtrace's stdout or stderr and were dropped", "")
	add("jobtrace.dropped.long_lines", long, "output lines were longer than max_line_bytes and were not scanned for markers", "output lines too long to scan")
	add("jobtrace.dropped.output_markers", out.Stats().Refused+errs.Stats().Refused, "output markers were refused (an END_PHASE whose result= is none of the results)", "output markers refused")
	if un := unscanned(out, errs); un.UnscannedLines > 0 || un.UnscannedBytes > 0 {
		attrs = append(attrs, attribute.Int64("jobtrace.dropped.unscanned_lines", int64(un.UnscannedLines)),
			attribute.Int64("jobtrace.dropped.unscanned_bytes", int64(un.UnscannedBytes)))
		log.Printf("%d output lines (%d bytes) were not scanned for markers: the scanner fell behind the job's output, which it never holds up",
			un.UnscannedLines, un.UnscannedBytes)
		lost = append(lost, fmt.Sprintf("%d output lines not scanned (the scanner fell behind)", un.UnscannedLines))
		if dropped != nil {
			dropped.Add(context.Background(), int64(un.UnscannedLines), metric.WithAttributes(usagemetrics.AttrDroppedWhat.String("unscanned_lines")))
		}
	}
	if s.server != nil {
		st := s.server.Stats()
		add("jobtrace.dropped.socket_messages", st.Rejected+st.TooLong, "socket messages were malformed or too long and were dropped", "socket messages malformed or too long")
		add("jobtrace.dropped.socket_connections", st.RefusedConns, "socket connections were refused (limit max_socket_conns)", "socket connections refused")
	}
	if s.reader != nil {
		st := s.reader.Stats()
		add("jobtrace.dropped.marker_messages", st.Rejected+st.TooLong, "marker-dir lines were malformed or too long and were dropped", "marker-dir lines malformed or too long")
		add("jobtrace.dropped.marker_files", st.IgnoredFiles, "files in the marker dir were ignored", "marker-dir files ignored")
		add("jobtrace.dropped.marker_bytes", st.UnreadBytes, fmt.Sprintf("bytes of the marker dir were not read: the end of the job reads it for at most %v", markerdir.DefaultFinalTimeout), "marker-dir bytes not read at the end")
	}
	ts := t.Stats()
	add("jobtrace.dropped.messages", ts.Refused, "phase messages were refused at a limit", "messages refused at a limit")
	add("jobtrace.dropped.attributes", ts.DroppedAttrs, fmt.Sprintf("attributes of the job's messages and counters were dropped: a span holds %d of them (limit)", spans.MaxUserAttributes), "attributes past a span's limit")
	add("jobtrace.dropped.events", ts.DroppedEvents, fmt.Sprintf("events were dropped: a span holds %d (limit)", spans.MaxUserEvents), "events past a span's limit")
	add("jobtrace.unmatched_ends", ts.Unmatched, "phase ends had no open phase of that name", "")
	add("jobtrace.ignored_timestamps", ts.BadTimes, "messages had a ts outside the job's time: the time received was used instead", "")
	return attrs, lost
}

// unscanned adds up what the output scanners skipped.
func unscanned(scanners ...*scan.Scanner) scan.Stats {
	var st scan.Stats
	for _, s := range scanners {
		u := s.Stats()
		st.UnscannedLines += u.UnscannedLines
		st.UnscannedBytes += u.UnscannedBytes
	}
	return st
}
