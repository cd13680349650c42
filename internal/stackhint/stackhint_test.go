package stackhint

import (
	"testing"
	"unsafe"
)

// moves runs grow and then deep on a new goroutine and reports whether
// each moved the goroutine's stack (the address of a local changed).
func moves(grow, deep func()) (byGrow, byDeep bool) {
	done := make(chan [2]bool)
	go func() {
		var x byte
		at := func() uintptr { return uintptr(unsafe.Pointer(&x)) }
		a := at()
		grow()
		b := at()
		deep()
		c := at()
		done <- [2]bool{a != b, b != c}
	}()
	r := <-done
	return r[0], r[1]
}

//go:noinline
func deep12K() { var p [12 << 10]byte; use(p[:]) }

//go:noinline
func deep26K() { var p [26 << 10]byte; use(p[:]) }

//go:noinline
func use(p []byte) { p[len(p)-1] = 1 }

func TestGrow(t *testing.T) {
	for _, c := range []struct {
		name       string
		grow, deep func()
	}{
		{"Grow", Grow, deep12K},
		{"GrowMain", GrowMain, deep26K},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, moved := moves(func() {}, c.deep); !moved {
				t.Skip("a new goroutine's stack is already as deep as the work (the runtime sized it after a collection)")
			}
			byGrow, byDeep := moves(c.grow, c.deep)
			if !byGrow || byDeep {
				t.Errorf("%s moved the stack: %v, the work after it: %v; want true, false", c.name, byGrow, byDeep)
			}
		})
	}
}
