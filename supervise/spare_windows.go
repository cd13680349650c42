package supervise

// HoldSpare holds nothing on Windows, whose handles are not bounded per
// process as Unix descriptors are.
func HoldSpare() *Spare { return &Spare{} }

// Free does nothing on Windows.
func (s *Spare) Free() {}
