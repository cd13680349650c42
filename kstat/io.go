package kstat

import "fmt"

// kstat_io_t: two 64-bit byte counts, two 32-bit operation counts, six
// hrtime_t, two 32-bit queue counts; no padding.
const (
	ioSize = 80

	offKioNread       = 0  // u_longlong_t nread
	offKioNwritten    = 8  // u_longlong_t nwritten
	offKioReads       = 16 // uint_t reads
	offKioWrites      = 20 // uint_t writes
	offKioWtime       = 24 // hrtime_t wtime
	offKioWlentime    = 32 // hrtime_t wlentime
	offKioWlastupdate = 40 // hrtime_t wlastupdate
	offKioRtime       = 48 // hrtime_t rtime
	offKioRlentime    = 56 // hrtime_t rlentime
	offKioRlastupdate = 64 // hrtime_t rlastupdate
	offKioWcnt        = 72 // uint_t wcnt
	offKioRcnt        = 76 // uint_t rcnt
)

// parseIO decodes the data section of an I/O kstat, one kstat_io_t.
func parseIO(data []byte) (IO, error) {
	if len(data) < ioSize {
		return IO{}, fmt.Errorf("%w: kstat_io_t needs %d bytes, have %d", ErrParse, ioSize, len(data))
	}
	return IO{
		NRead:       le.Uint64(data[offKioNread:]),
		NWritten:    le.Uint64(data[offKioNwritten:]),
		Reads:       uint64(le.Uint32(data[offKioReads:])),
		Writes:      uint64(le.Uint32(data[offKioWrites:])),
		WTime:       int64(le.Uint64(data[offKioWtime:])),
		WLenTime:    int64(le.Uint64(data[offKioWlentime:])),
		WLastUpdate: int64(le.Uint64(data[offKioWlastupdate:])),
		RTime:       int64(le.Uint64(data[offKioRtime:])),
		RLenTime:    int64(le.Uint64(data[offKioRlentime:])),
		RLastUpdate: int64(le.Uint64(data[offKioRlastupdate:])),
		WCnt:        le.Uint32(data[offKioWcnt:]),
		RCnt:        le.Uint32(data[offKioRcnt:]),
	}, nil
}
