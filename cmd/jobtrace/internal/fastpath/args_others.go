//go:build unix && !linux

package fastpath

import "os"

// args returns os.Args. Elsewhere than on Linux, the fast path imports os,
// and is initialized after it (see the package comment).
func args() []string { return os.Args }
