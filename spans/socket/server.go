package socket

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobtrace/jobtrace/internal/warnlimit"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// Defaults for Options fields left at zero.
const (
	// DefaultMaxConns bounds concurrent connections (the default of the
	// limits.max_socket_conns setting). A job's parallel steps each hold one
	// at most for a moment; 256 is far above that and keeps a runaway loop
	// from using up the agent's file descriptors.
	DefaultMaxConns = 256
)

// DrainTimeout is how long Close lets open connections go on reading what
// their clients had already sent. It is part of the agent's end-of-job
// budget, so it stays short: data already in the socket buffer is read in
// microseconds.
const DrainTimeout = 200 * time.Millisecond

// drainIdle ends a draining connection early once its client has sent
// nothing for this long.
const drainIdle = 20 * time.Millisecond

// replyTimeout bounds writing one batch of replies to a client that does
// not read them, so a stuck client cannot hold its goroutine for ever.
const replyTimeout = 2 * time.Second

// Handler takes one message and returns the reply to send if the message
// asked for one. It is called in order for the messages of one connection,
// and may be called concurrently for different connections.
type Handler func(m protocol.Msg) protocol.Reply

// Options tunes a Server. Zero fields take the defaults above.
type Options struct {
	MaxConns        int
	MaxMessageBytes int
	Warn            func(string) // nil: warnings are only counted
}

// Stats counts what a Server saw.
type Stats struct {
	Conns        uint64 // connections accepted
	Messages     uint64 // messages passed to the handler
	Rejected     uint64 // malformed lines dropped
	TooLong      uint64 // lines over MaxMessageBytes dropped
	RefusedConns uint64 // connections closed at once because MaxConns were open
}

// Server accepts connections on a unix socket.
type Server struct {
	ln     *net.UnixListener
	h      Handler
	max    int
	maxMsg int
	warn   *warnlimit.Limiter

	mu      sync.Mutex
	conns   map[*net.UnixConn]struct{}
	closed  bool
	serving bool
	wg      sync.WaitGroup // Serve and connection goroutines
	closing atomic.Bool
	hardEnd atomic.Int64 // unix nanoseconds at which draining stops

	accepted, messages, rejected, tooLong, refused atomic.Uint64
}

// Listen creates the socket at path with mode 0600. The caller keeps it in
// a directory only the job's user can enter (0700), which is what really
// keeps other users out: the mode is set after the socket exists.
func Listen(path string, h Handler, opts Options) (*Server, error) {
	if h == nil {
		return nil, errors.New("socket: nil handler")
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket: %w", err)
	}
	s := &Server{
		ln:     ln,
		h:      h,
		max:    opts.MaxConns,
		maxMsg: opts.MaxMessageBytes,
		warn:   warnlimit.New("socket: ", opts.Warn, warnlimit.DefaultVerbatim),
		conns:  make(map[*net.UnixConn]struct{}),
	}
	if s.max <= 0 {
		s.max = DefaultMaxConns
	}
	if s.maxMsg <= 0 {
		s.maxMsg = protocol.DefaultMaxMessageBytes
	}
	return s, nil
}

// Addr returns the socket's path.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve accepts connections until Close. It returns nil after Close.
func (s *Server) Serve() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	if s.serving {
		s.mu.Unlock()
		return errors.New("socket: Serve called twice")
	}
	s.serving = true
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	var delay time.Duration
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if s.closing.Load() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Out of file descriptors and the like: back off and go on,
			// as net/http does, rather than give up the socket.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.warn.Warnf("accept: %v", err)
			time.Sleep(delay)
			continue
		}
		delay = 0
		s.mu.Lock()
		if s.closed {
			// Accepted while Close ran: its client may have written
			// already, so it is read like the others, within the drain
			// time, and Close waits for it.
			c.SetReadDeadline(time.Now().Add(drainIdle))
			s.conns[c] = struct{}{}
			s.wg.Add(1)
			s.mu.Unlock()
			s.accepted.Add(1)
			go s.serveConn(c)
			return nil
		}
		if len(s.conns) >= s.max {
			s.mu.Unlock()
			c.Close()
			s.refused.Add(1)
			s.warn.Warnf("refused a connection: %d are open (the limit)", s.max)
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		if s.closing.Load() {
			c.SetReadDeadline(time.Now().Add(drainIdle))
		}
		s.mu.Unlock()
		s.accepted.Add(1)
		go s.serveConn(c)
	}
}

// Close stops accepting, lets open connections read what their clients had
// already sent for up to DrainTimeout, then closes them and waits for their
// goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.hardEnd.Store(time.Now().Add(DrainTimeout).UnixNano())
	s.closing.Store(true)
	// Connections a client made just before the end may still wait in
	// the listen backlog, their messages already written: accept them
	// now, without waiting for more, so those messages are read too.
	for _, c := range acceptBacklog(s.ln) {
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.accepted.Add(1)
		go s.serveConn(c)
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.SetReadDeadline(time.Now().Add(drainIdle))
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(DrainTimeout + replyTimeout):
		// A handler or reply write is stuck; cut the connections.
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		<-done
	}
	s.warn.Flush()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{
		Conns:        s.accepted.Load(),
		Messages:     s.messages.Load(),
		Rejected:     s.rejected.Load(),
		TooLong:      s.tooLong.Load(),
		RefusedConns: s.refused.Load(),
	}
}

// serveConn reads lines from one connection until EOF, an error, or the
// end of draining after Close.
func (s *Server) serveConn(c *net.UnixConn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
		s.wg.Done()
	}()
	// The read buffer starts small (most connections send one short
	// message) and grows to hold one whole line at most, plus room so that
	// a read usually brings many short lines at once.
	limit := s.maxMsg + 1 + 16<<10
	buf := make([]byte, min(4<<10, limit))
	start, end := 0, 0
	skipping := false // discarding an over-long line up to its newline
	var long longLine // what is known of the over-long line being skipped
	out := bufio.NewWriterSize(c, 4<<10)
	for {
		if start == end {
			start, end = 0, 0
		} else if end == len(buf) {
			if start > 0 {
				end = copy(buf, buf[start:end])
				start = 0
			} else if len(buf) < limit {
				nb := make([]byte, min(2*len(buf), limit))
				copy(nb, buf[:end])
				buf = nb
			} else { // cannot happen: a partial line over maxMsg is dropped below
				start, end = 0, 0
			}
		}
		n, err := c.Read(buf[end:])
		end += n
		// Take every complete line in the buffer.
		for {
			i := bytes.IndexByte(buf[start:end], '\n')
			if i < 0 {
				break
			}
			line := buf[start : start+i]
			start += i + 1
			switch {
			case skipping:
				skipping = false
				long.size += len(line)
				s.warnLong(long.head, long.size)
				if long.scan(line); long.ack {
					s.tooLongReply(out)
				}
			case len(line) > s.maxMsg:
				s.tooLong.Add(1)
				s.warnLong(line, len(line))
				if protocol.AskedForAck(line) {
					s.tooLongReply(out)
				}
			default:
				s.message(line, out)
			}
		}
		if !skipping && end-start > s.maxMsg {
			// Counted now, said when its end is seen, with its real size.
			s.tooLong.Add(1)
			skipping = true
			long = longLine{head: append([]byte(nil), buf[start:min(end, start+protocol.ExcerptBytes)]...)}
		}
		if skipping {
			long.scan(buf[start:end])
			long.size += end - start
			start, end = 0, 0
		}
		if out.Buffered() > 0 {
			c.SetWriteDeadline(time.Now().Add(replyTimeout))
			if werr := out.Flush(); werr != nil {
				s.warn.Warnf("reply: %v", werr)
				return
			}
		}
		if err != nil {
			if skipping {
				s.warnLong(long.head, long.size)
			}
			if err == io.EOF && start < end && !skipping {
				// A last message without newline: take it.
				s.message(buf[start:end], out)
				if out.Buffered() > 0 {
					c.SetWriteDeadline(time.Now().Add(replyTimeout))
					out.Flush()
				}
			}
			if err != io.EOF && !isTimeout(err) && !errors.Is(err, net.ErrClosed) {
				s.warn.Warnf("read: %v", err)
			}
			return
		}
		if s.closing.Load() {
			// Draining: go on while the client still has data for us.
			deadline := time.Now().Add(drainIdle)
			if hard := time.Unix(0, s.hardEnd.Load()); hard.Before(deadline) {
				deadline = hard
			}
			c.SetReadDeadline(deadline)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// warnLong says that a message of size bytes, starting with head, was
// longer than the bound and dropped.
func (s *Server) warnLong(head []byte, size int) {
	s.warn.Warnf("message longer than %d bytes dropped: %s", s.maxMsg, protocol.LongExcerpt(head, int64(size)))
}

// tooLongReply queues the error reply to an over-long line that asked for
// one.
func (s *Server) tooLongReply(out *bufio.Writer) {
	writeReply(out, protocol.Reply{Error: fmt.Sprintf("message longer than %d bytes", s.maxMsg)})
}

// longLine follows an over-long line that is read and dropped piece by
// piece, to know whether it asked for a reply: "ack":true may be in any
// piece, or across two.
type longLine struct {
	head []byte // its first protocol.ExcerptBytes, for the warning
	size int    // bytes seen so far
	ack  bool
	tail [ackSpan]byte
	n    int // bytes of tail in use
}

// ackSpan is more than "ack":true with blanks around its colon, the longest
// stretch of the pattern that can straddle two pieces.
const ackSpan = 64

func (l *longLine) scan(piece []byte) {
	if l.ack || len(piece) == 0 {
		return
	}
	var seam [2 * ackSpan]byte
	k := copy(seam[:], l.tail[:l.n])
	k += copy(seam[k:], piece[:min(len(piece), ackSpan)])
	if protocol.AskedForAck(seam[:k]) || protocol.AskedForAck(piece) {
		l.ack = true
		return
	}
	if len(piece) >= ackSpan {
		l.n = copy(l.tail[:], piece[len(piece)-ackSpan:])
	} else {
		keep := min(l.n, ackSpan-len(piece))
		copy(l.tail[:], l.tail[l.n-keep:l.n])
		l.n = keep + copy(l.tail[keep:], piece)
	}
}

// message handles one line and queues its reply, if any.
func (s *Server) message(line []byte, out *bufio.Writer) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	m, err := protocol.Parse(line)
	if err != nil {
		s.rejected.Add(1)
		s.warn.Warnf("%v: %s", err, protocol.Excerpt(line))
		if m.Ack {
			writeReply(out, protocol.Reply{Error: err.Error()})
		}
		return
	}
	m.Syntax = protocol.SyntaxSocket
	s.messages.Add(1)
	r := s.h(m)
	if m.Ack {
		writeReply(out, r)
	}
}

func writeReply(out *bufio.Writer, r protocol.Reply) {
	out.Write(r.AppendLine(out.AvailableBuffer()))
}
