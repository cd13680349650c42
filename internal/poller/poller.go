// Package poller has the Go runtime make its poller (an epoll instance and
// an eventfd on Linux, a kqueue on the BSDs) before the process opens
// anything. The runtime makes it on first need (the first timer or pipe),
// and when the process's descriptors are used up by then (a low
// `ulimit -n`), it cannot, which the runtime takes as a fatal error: the
// process dies instead of getting EMFILE from the call that needed the
// descriptor, as it does once the poller exists.
package poller

import "time"

// Start makes the poller, at the cost of a timer: the runtime makes it when
// a timer is first added to its heap, as AfterFunc does.
func Start() {
	time.AfterFunc(time.Hour, func() {}).Stop()
}
