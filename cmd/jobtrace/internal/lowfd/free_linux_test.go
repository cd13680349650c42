package lowfd

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// lowestFree is the descriptor the next open gets.
func lowestFree(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	return fd
}

// TestFree: Free counts the descriptors that can still be opened under
// the limit, up to what it is asked, and leaves none of them open. The
// test lowers its own process's soft limit, and so runs alone.
func TestFree(t *testing.T) {
	before := lowestFree(t)
	if got := Free(Min); got != Min {
		t.Errorf("Free(%d) = %d under ulimit -n %d", Min, got, Limit())
	}
	if after := lowestFree(t); after != before {
		t.Errorf("the lowest free descriptor went from %d to %d: Free left some open", before, after)
	}

	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	saved := rl
	// Descriptors above the lowest free one may be open too (inherited):
	// the limit is put where exactly want are free below it.
	const want = 3
	limit := before
	for free := 0; free < want; limit++ {
		if _, err := unix.FcntlInt(uintptr(limit), unix.F_GETFD, 0); err == unix.EBADF {
			free++
		}
	}
	rl.Cur = uint64(limit)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skipf("cannot lower the limit of descriptors: %v", err)
	}
	got, lim := Free(Min), Limit()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Fatal(err)
	}
	if got != want || lim != uint64(limit) {
		t.Errorf("under ulimit -n %d: Free(%d) = %d, Limit() = %d; want %d and %d", limit, Min, got, lim, want, limit)
	}
}
