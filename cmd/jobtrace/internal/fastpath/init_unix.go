//go:build unix

package fastpath

import (
	"syscall"
	"time"

	"github.com/jobtrace/jobtrace/internal/stackhint"
	"github.com/jobtrace/jobtrace/spans/wire"
)

func init() {
	serve()
	// Not a marker command: the whole program follows, whose packages'
	// initialisation takes the main goroutine's stack to 32 KiB in four
	// copies, the last ones deep.
	stackhint.GrowMain()
}

// serve sends a marker command to the agent and exits with its outcome;
// it returns when the command is not one, or main has to say why it
// could not be sent.
func serve() {
	path, _ := syscall.Getenv("JOBTRACE_SOCKET")
	if path == "" {
		return
	}
	argv := args()
	if len(argv) < 2 {
		return
	}
	r, err := Parse(argv[1:])
	if err != nil {
		return // not a marker command, --help, or a usage error main reports
	}
	fd, err := dial(path)
	if err != nil {
		return // main reports it
	}
	// The step of `jobtrace exec` the command runs in, if any: the
	// marker applies within it.
	tp, _ := syscall.Getenv("TRACEPARENT")
	// UTC: the local zone would be loaded from /etc/localtime first.
	line := r.AppendLine(make([]byte, 0, 256), time.Now().UTC(), tp)
	if _, err := syscall.Write(fd, line); err != nil {
		syscall.Close(fd)
		return // nothing was taken: main tries again and reports
	}
	reply, err := readLine(fd)
	syscall.Close(fd)
	if err != nil {
		// The message was sent: the agent may still apply it.
		stderr(Unreached(path, err.Error(), r.What(), true))
		syscall.Exit(0)
	}
	rep, err := wire.ParseReply(reply)
	switch {
	case err != nil:
		stderr("jobtrace: warning: JOBTRACE_SOCKET: bad reply: " + err.Error() + "\n")
	case !rep.OK:
		// A warning, not an error: a marker that does not apply must
		// not fail the job's step.
		stderr("jobtrace: warning: " + rep.Error + "\n")
	}
	syscall.Exit(0)
}

func stderr(s string) {
	syscall.Write(2, []byte(s))
}

func dial(path string) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd)
	// A listener whose queue is full (an agent that no longer accepts)
	// would hold connect, and a full socket buffer the write, for ever.
	tv := syscall.NsecToTimeval(int64(wire.ReplyTimeout))
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	return fd, nil
}

// readLine reads the reply line; replies are short.
func readLine(fd int) ([]byte, error) {
	var buf [4096]byte
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			if err == syscall.EAGAIN {
				return nil, errTimeout
			}
			return nil, err
		}
		if m == 0 {
			break
		}
		n += m
		for i := n - m; i < n; i++ {
			if buf[i] == '\n' {
				return buf[:i], nil
			}
		}
	}
	if n == 0 {
		return nil, errClosed
	}
	return buf[:n], nil
}

type fpError string

func (e fpError) Error() string { return string(e) }

const (
	errTimeout fpError = "no reply within 2s"
	errClosed  fpError = "the socket closed without a reply"
)
