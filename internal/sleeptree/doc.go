// Package sleeptree starts trees of sleeping processes for tests and
// benchmarks of the process-tree and sample readers (Linux only).
package sleeptree
