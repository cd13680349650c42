package hostmetrics

import (
	"context"
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processTable appends to dst every process of the system with its parent
// and its thread count, from one Toolhelp snapshot. gopsutil takes such a
// snapshot for every call of Children, Ppid or NumThreads, which would
// make a tree of n processes cost 2n snapshots of the whole system per
// sample; the job's tree is found from this one instead.
func processTable(_ context.Context, dst []procLink) ([]procLink, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return dst, os.NewSyscallError("CreateToolhelp32Snapshot", err)
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		dst = append(dst, procLink{PID: int32(e.ProcessID), PPID: int32(e.ParentProcessID), Threads: int32(e.Threads)})
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return dst, os.NewSyscallError("Process32Next", err)
	}
	return dst, nil
}
