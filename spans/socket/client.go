package socket

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// RequestTimeout bounds how long Request waits for its reply: that of
// every sender (wire.ReplyTimeout).
const RequestTimeout = wire.ReplyTimeout

// Client sends messages to a Server. It is safe for concurrent use.
type Client struct {
	mu  sync.Mutex
	c   net.Conn
	r   *bufio.Reader
	buf []byte
}

// Dial connects to the socket at path.
func Dial(path string) (*Client, error) {
	c, err := net.DialTimeout("unix", path, RequestTimeout)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	return &Client{c: c, r: bufio.NewReader(c)}, nil
}

// Send writes m without waiting for a reply; Ack is cleared.
func (c *Client) Send(m protocol.Msg) error {
	m.Ack = false
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.write(m)
}

func (c *Client) write(m protocol.Msg) error {
	c.buf = m.AppendJSON(c.buf[:0])
	c.c.SetWriteDeadline(time.Now().Add(RequestTimeout))
	if _, err := c.c.Write(c.buf); err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	return nil
}

// Request sends m with Ack set and waits up to RequestTimeout for the
// reply. A reply with OK false is returned with a nil error: the message
// arrived and the agent said no.
func (c *Client) Request(m protocol.Msg) (protocol.Reply, error) {
	m.Ack = true
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.write(m); err != nil {
		return protocol.Reply{}, err
	}
	c.c.SetReadDeadline(time.Now().Add(RequestTimeout))
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return protocol.Reply{}, errors.New("socket: reply line too long")
		}
		return protocol.Reply{}, fmt.Errorf("socket: no reply: %w", err)
	}
	r, err := wire.ParseReply(line)
	if err != nil {
		return protocol.Reply{}, fmt.Errorf("socket: bad reply: %w", err)
	}
	return r, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	return c.c.Close()
}
