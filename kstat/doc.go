// Package kstat reads illumos kernel statistics (kstats) from /dev/kstat,
// in pure Go: no cgo, no libkstat, no kstat(1) subprocess.
//
// A kstat is named module:instance:name (cpu:0:sys, unix:0:system_misc,
// link:0:net0), belongs to a class (misc, disk, net, ...) and has a type
// that says what its data is: name=value pairs (KSTAT_TYPE_NAMED, read with
// Token.ReadNamed), disk-like I/O counters (KSTAT_TYPE_IO, Token.ReadIO), or
// raw bytes, interrupt counts and event timers, which this package lists but
// does not decode.
//
// # How it reads
//
// Open opens /dev/kstat and reads the kstat chain: the headers (kstat_t) of
// every kstat the caller's zone can see. The kernel hands them out as the
// data of kstat 0 (unix:0:kstat_headers), so the chain is read like any
// other kstat, with the KSTAT_IOC_READ ioctl (kstat(4D)):
//
//   - the caller passes a kstat_t whose ks_kid names the kstat and whose
//     ks_data and ks_data_size describe a buffer;
//   - if the buffer is too small the driver fails with ENOMEM and writes the
//     size it needs into ks_data_size: the buffer is grown and the read
//     retried;
//   - EAGAIN means the kstat is momentarily being set up, or the kernel could
//     not allocate its snapshot without sleeping: the read is retried after a
//     short pause, a bounded number of times (maxAttempts);
//   - ENXIO means the kstat no longer exists: the error wraps ErrStale.
//
// The kernel numbers every change to the chain (a disk or link appears or
// goes away) with the chain id. Token.Update asks for it with
// KSTAT_IOC_CHAIN_ID and reads the headers again only when it has changed,
// so a sampler calls Update once per tick and then looks its kstats up.
//
// # Layouts
//
// The structures are decoded from bytes by parsers that are not tied to
// illumos (parseHeaders, parseNamed, parseIO), following the 64-bit layouts
// of <sys/kstat.h>: kstat_t is 184 bytes, kstat_named_t 48, kstat_io_t 80;
// the offsets are named constants after the header's field names. Go builds
// illumos programs for amd64 only, so the data is little-endian. The parsers
// are tested on every system against binary fixtures in testdata/ (see its
// README); only the ioctl layer (device_illumos.go) is illumos-specific. On
// other systems Open returns an error that wraps ErrUnsupported.
//
// A KSTAT_DATA_STRING value does not hold its text: its union holds a
// pointer and a length. The kernel copies the strings after the array of
// kstat_named_t in the caller's buffer and rewrites each pointer to the
// string's address in that buffer. The parser therefore decodes a pointer as
// an offset from the buffer's address, and refuses one that points outside
// the buffer or into the array.
//
// # Memory
//
// The kstat_t handed to the driver and the data buffer its ks_data points at
// are mapped with mmap(2), outside the Go heap: the garbage collector never
// moves or frees them, so their addresses stay valid across the ioctl. They
// are unmapped only by Close, or when the data buffer is replaced by a
// larger one, both under the Token's lock.
//
// # Zones
//
// A program in a non-global zone sees only the kstats exported to its zone,
// and some kstats (unix:0:system_misc's load averages, nproc) answer with
// that zone's figures.
package kstat
