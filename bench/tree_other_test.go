//go:build !unix

package bench

import "testing"

func treeRoot(tb testing.TB, n int) int {
	tb.Skip("process trees are spawned with sh and process groups, which need a Unix system")
	return 0
}

func stopTree() error { return nil }
