package safefile

import "os"

// CutTorn undoes a write to f, a file opened for appending records that
// end in a newline, of which only the first w bytes reached the file (a
// full disk, a file size limit): the file is cut back to before, its size
// when the write began, so that it holds whole records only and the next
// record, once there is room, reads back whole. It is cut only while it
// ends with those w bytes: when another process appended meanwhile, or
// the file cannot be cut, a newline ends the torn record instead when it
// can be written, so that a reader skips that record alone rather than the
// next one glued to it. It returns the file's size as far as the caller
// wrote it: before when cut, else before + w and the newline.
func CutTorn(f *os.File, before, w int64) int64 {
	if w <= 0 {
		return before
	}
	if fi, err := f.Stat(); err == nil && fi.Size() == before+w && f.Truncate(before) == nil {
		return before
	}
	end := before + w
	if k, err := f.Write([]byte{'\n'}); err == nil {
		end += int64(k)
	}
	return end
}
