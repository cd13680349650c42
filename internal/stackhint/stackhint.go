// Package stackhint grows a goroutine's stack to the size its work will
// reach, at once and while the goroutine is shallow.
//
// A goroutine starts with a stack of 2 KiB; each time a call needs more,
// the runtime allocates one twice as large and copies the old one, walking
// every frame on it to move its pointers. A short run's goroutines (the
// sampler, the spool's writer, the renderers) reach 8 to 16 KiB through
// three such copies each, made deep in their work, where the walk is
// longest; the runtime sizes new goroutines from what it saw only after a
// garbage collection, which a short run never reaches. One call of Grow at
// the start of such a goroutine makes one copy of one or two frames.
package stackhint

// Size is what Grow reserves: the depth the largest of those goroutines
// reaches (runmodel's figures and the profile's number formatting, 8 to
// 16 KiB), less the room the runtime keeps below a frame.
const Size = 14 << 10

// Grow makes the calling goroutine's stack at least Size deep.
//
//go:noinline
func Grow() {
	var pad [Size]byte
	touch(&pad)
}

//go:noinline
func touch(p *[Size]byte) { p[0] = 1 }

// MainSize is what GrowMain reserves: the depth the main goroutine reaches
// in the packages' initialisation (regular expressions compiled, OTel
// attribute sets hashed: 16 to 32 KiB) and in a run.
const MainSize = 30 << 10

// GrowMain makes the calling goroutine's stack at least MainSize deep: the
// main goroutine's, from the first package initialised that is not a
// dependency of the others.
//
//go:noinline
func GrowMain() {
	var pad [MainSize]byte
	touchMain(&pad)
}

//go:noinline
func touchMain(p *[MainSize]byte) { p[0] = 1 }
