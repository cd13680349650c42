//go:build unix

package supervise

import (
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// keyboard is jobtrace's controlling terminal while a job runs with a
// pseudo-terminal of its own as its controlling terminal: what is typed on
// it is passed to the job's pseudo-terminal, byte for byte, as script(1) or
// a terminal multiplexer passes it, so that a job that asks its terminal
// (a password on /dev/tty, a confirmation on stdin) gets what the user
// types, and ^C, ^\ and ^D reach it as they would on the terminal itself.
// While it is passed on, the terminal's input is in raw mode (no line
// editing, echo or signal keys of its own: the job's pseudo-terminal does
// those); its output mode is left as it was, so jobtrace's own messages and
// the job's output look as before. The mode is set back when the job ends.
type keyboard struct {
	tty   *os.File // the terminal, opened anew: a file description of jobtrace's own
	saved unix.Termios
	done  chan struct{} // closed when passing on has ended
	once  sync.Once
}

// openKeyboard returns jobtrace's controlling terminal with its input in
// raw mode, or nil where what is typed cannot be passed on: no controlling
// terminal (as in CI), jobtrace not in its foreground (started in the
// background, where reading it would stop jobtrace), or a terminal that
// cannot be read without blocking (a read that could not be stopped at the
// job's end would take the next key typed from the shell).
func openKeyboard() *keyboard {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	k := &keyboard{tty: tty}
	if !k.takeInput() {
		tty.Close()
		return nil
	}
	return k
}

// takeInput sets the terminal's input to raw mode, when jobtrace is in its
// foreground and it can be read without blocking.
func (k *keyboard) takeInput() bool {
	if k.tty.SetReadDeadline(time.Time{}) != nil {
		return false
	}
	ok := false
	control(k.tty, func(fd int) {
		fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		own, err2 := unix.Getpgid(0)
		if err != nil || err2 != nil || fg != own {
			return
		}
		t, err := unix.IoctlGetTermios(fd, getTermios)
		if err != nil {
			return
		}
		k.saved = *t
		raw := rawInput(*t)
		ok = unix.IoctlSetTermios(fd, setTermios, &raw) == nil
	})
	return ok
}

// rawInput is t with its input passed on as typed: no line editing, echo,
// signal keys, flow control or translation of carriage returns. The output
// flags are kept.
func rawInput(t unix.Termios) unix.Termios {
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return t
}

// forward passes what is typed to ptm until stop, and reports whether it
// started: not where a write to ptm could not be stopped.
func (k *keyboard) forward(ptm *os.File) bool {
	if ptm.SetWriteDeadline(time.Time{}) != nil {
		return false
	}
	k.done = make(chan struct{})
	go func() {
		defer close(k.done)
		buf := make([]byte, 4096)
		for {
			n, err := k.tty.Read(buf)
			if n > 0 {
				if _, werr := ptm.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return // stopped, or the terminal hung up
			}
		}
	}()
	return true
}

// stop ends the passing on to ptm and sets the terminal's mode back. What
// was typed and not read by then is the shell's.
func (k *keyboard) stop(ptm *os.File) {
	k.once.Do(func() {
		past := time.Unix(1, 0)
		_ = k.tty.SetReadDeadline(past)
		if k.done != nil {
			// A job that no longer reads may have left the
			// pseudo-terminal's input full.
			_ = ptm.SetWriteDeadline(past)
			<-k.done
		}
		control(k.tty, func(fd int) { _ = unix.IoctlSetTermios(fd, setTermios, &k.saved) })
	})
}

// close closes the terminal, once stopped and once nothing more is written
// to it.
func (k *keyboard) close() { k.tty.Close() }

// isControllingTerminal reports whether f is jobtrace's controlling
// terminal: the kernel tells the foreground process group of that one
// only.
func isControllingTerminal(f *os.File) bool {
	ok := false
	if f != nil {
		control(f, func(fd int) {
			_, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
			ok = err == nil
		})
	}
	return ok
}
