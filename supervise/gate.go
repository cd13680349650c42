package supervise

import (
	"bytes"
	"io"
	"sync"
)

// Gate is one output destination shared by the job's passthrough and
// jobtrace's own messages. It holds jobtrace's messages back while the job
// is in the middle of a line on that destination, so nothing jobtrace says
// is ever written into a job's output line.
type Gate struct {
	mu          sync.Mutex
	w           io.Writer
	atLineStart bool
	pending     [][]byte
}

func NewGate(w io.Writer) *Gate { return &Gate{w: w, atLineStart: true} }

// Write passes the job's bytes through unchanged. Messages held back are
// written right after the end of the job's line, even when the chunk goes
// on with the start of the next one.
func (g *Gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pending) > 0 {
		if i := bytes.LastIndexByte(p, '\n'); i >= 0 && i < len(p)-1 {
			n, err := g.w.Write(p[:i+1])
			if err != nil {
				return n, err
			}
			g.atLineStart = true
			g.flushPending()
			m, err := g.write(p[i+1:])
			return n + m, err
		}
	}
	n, err := g.write(p)
	if g.atLineStart && len(g.pending) > 0 {
		g.flushPending()
	}
	return n, err
}

func (g *Gate) write(p []byte) (int, error) {
	n, err := g.w.Write(p)
	if n > 0 {
		g.atLineStart = p[n-1] == '\n'
	}
	return n, err
}

func (g *Gate) flushPending() {
	for _, m := range g.pending {
		g.w.Write(m)
	}
	g.pending = nil
}

// message writes one of jobtrace's lines, now if the destination is at the
// start of a line, else as soon as the job's line is complete.
func (g *Gate) message(line []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.atLineStart {
		g.w.Write(line)
		return
	}
	// Bounded: a job that never ends its line must not grow this.
	if len(g.pending) < 1000 {
		g.pending = append(g.pending, bytes.Clone(line))
	}
}

// Finish writes held messages after the job has ended, on a line of their
// own.
func (g *Gate) Finish() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pending) == 0 {
		return
	}
	if !g.atLineStart {
		g.w.Write([]byte("\n"))
		g.atLineStart = true
	}
	g.flushPending()
}
