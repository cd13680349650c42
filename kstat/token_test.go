package kstat

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/kstat/internal/fixture"
)

// fakeKernel plays /dev/kstat for a Token, with the driver's rules
// (uts/common/io/kstat.c, read_kstat_data): the caller's kstat_t names the
// kstat by ks_kid and the buffer by ks_data and ks_data_size; a buffer too
// small gets ENOMEM and the size needed in ks_data_size; an unknown KID gets
// ENXIO; kstat 0's data is the header list; KSTAT_DATA_STRING pointers
// point into the caller's buffer. Each buffer it hands out sits at a new
// address, so a parser that decoded strings against a stale or fixed
// address would fail.
type fakeKernel struct {
	kcid  int32
	chain []fixture.Entry
	busy  map[int32]int // KID → EAGAIN answers still to give

	hdr    [kstatSize]byte
	buf    []byte
	base   uint64
	grows  int
	reads  []fakeRead
	closed bool
}

type fakeRead struct {
	kid  int32
	size int
}

func newFakeKernel() *fakeKernel {
	return &fakeKernel{kcid: 142, chain: fixture.Chain(), busy: map[int32]int{}}
}

func (k *fakeKernel) chainID() (int32, error) { return k.kcid, nil }

func (k *fakeKernel) read(h *[kstatSize]byte, size int) (readResult, error) {
	kid := int32(le.Uint32(h[offKsKid:]))
	k.reads = append(k.reads, fakeRead{kid, size})
	if len(k.buf) < size || k.buf == nil {
		k.buf = make([]byte, max(size, 64))
		k.grows++
		k.base = 0x00007fff00000000 + uint64(k.grows)<<20
	}
	copy(k.hdr[:], h[:])
	le.PutUint64(k.hdr[offKsData:], k.base)
	le.PutUint64(k.hdr[offKsDataSize:], uint64(len(k.buf)))
	r := readResult{hdr: k.hdr[:], base: k.base}
	if k.busy[kid] > 0 {
		k.busy[kid]--
		return r, errBusy
	}
	var data []byte
	var ndata uint32
	if kid == 0 {
		data, ndata = fixture.Headers(k.chain), uint32(len(k.chain))
	} else {
		i := slices.IndexFunc(k.chain, func(e fixture.Entry) bool { return e.Kid == kid })
		if i < 0 {
			return r, ErrStale
		}
		e := k.chain[i]
		data, ndata = e.Data(k.base), e.Header(len(k.chain)).Ndata
	}
	le.PutUint32(k.hdr[offKsNdata:], ndata)
	le.PutUint64(k.hdr[offKsDataSize:], uint64(len(data)))
	if len(data) > len(k.buf) {
		return r, errTooSmall
	}
	copy(k.buf, data)
	r.kcid, r.data = k.kcid, k.buf[:len(data)]
	return r, nil
}

func (k *fakeKernel) close() error { k.closed = true; return nil }

// openFake opens a Token on k, counting its pauses.
func openFake(t *testing.T, k *fakeKernel) (*Token, *[]time.Duration) {
	t.Helper()
	tok, err := open(k)
	if err != nil {
		t.Fatal(err)
	}
	var pauses []time.Duration
	tok.sleep = func(d time.Duration) { pauses = append(pauses, d) }
	return tok, &pauses
}

func TestOpenGrowsForTheChain(t *testing.T) {
	k := newFakeKernel()
	tok, _ := openFake(t, k)
	// The first read of kstat 0 has no buffer worth the name: ENOMEM tells
	// the size, the second read has room to spare.
	need := len(k.chain) * kstatSize
	want := []fakeRead{{0, 0}, {0, need + need/growHeadroom}}
	if !slices.Equal(k.reads, want) {
		t.Errorf("reads %v, want %v", k.reads, want)
	}
	all := tok.All()
	if len(all) != len(k.chain) || all[0].String() != "unix:0:kstat_headers" || all[len(all)-1].String() != "link:0:vioif0" {
		t.Errorf("All: %d kstats, first %s, last %s", len(all), all[0], all[len(all)-1])
	}
	all[0].Module = "changed"
	if tok.All()[0].Module != "unix" {
		t.Error("All returned the Token's own slice")
	}
	if tok.kcid != 142 {
		t.Errorf("chain id %d, want the one the headers were read at", tok.kcid)
	}
}

func TestLookupAndFind(t *testing.T) {
	tok, _ := openFake(t, newFakeKernel())
	for _, c := range []struct {
		module   string
		instance int
		name     string
		want     string // "" when there is none
	}{
		{"unix", 0, "system_misc", "unix:0:system_misc"},
		{"cpu", 1, "sys", "cpu:1:sys"},
		{"cpu", -1, "vm", "cpu:0:vm"},
		{"cpu", 1, "", "cpu:1:sys"},
		{"sd", -1, "", "sd:0:sd0"},
		{"sderr", 0, "sd0,err", "sderr:0:sd0,err"},
		{"cpu", 2, "sys", ""},
		{"link", 0, "net0", ""},
		{"", -1, "", ""},
	} {
		k, ok := tok.Lookup(c.module, c.instance, c.name)
		if got := map[bool]string{true: k.String(), false: ""}[ok]; got != c.want {
			t.Errorf("Lookup(%q, %d, %q) = %q, want %q", c.module, c.instance, c.name, got, c.want)
		}
	}
	names := func(ks []KStat) (s []string) {
		for _, k := range ks {
			s = append(s, k.String())
		}
		return s
	}
	if got := names(tok.Find(func(k KStat) bool { return k.Class == "disk" })); !slices.Equal(got, []string{"sd:0:sd0"}) {
		t.Errorf("class disk: %v", got)
	}
	if got := names(tok.Find(func(k KStat) bool { return k.Module == "cpu" && k.Name == "sys" })); !slices.Equal(got, []string{"cpu:0:sys", "cpu:1:sys"}) {
		t.Errorf("cpu:*:sys: %v", got)
	}
	if got := tok.Find(func(KStat) bool { return false }); got != nil {
		t.Errorf("no match: %v", got)
	}
}

func TestReadNamedAndIO(t *testing.T) {
	k := newFakeKernel()
	tok, _ := openFake(t, k)
	misc, _ := tok.Lookup("unix", 0, "system_misc")
	ns, err := tok.ReadNamed(misc)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := Value(ns, "avenrun_1min"); n.Uint != 78 || len(ns) != 11 {
		t.Errorf("system_misc: %d values, avenrun_1min %+v", len(ns), n)
	}
	// Strings are found relative to the buffer the fake kernel used, which
	// is not the fixtures' address.
	info, _ := tok.Lookup("cpu_info", 0, "cpu_info0")
	ns, err = tok.ReadNamed(info)
	if err != nil {
		t.Fatal(err)
	}
	if k.base == fixture.StringBase {
		t.Fatal("the fake kernel should use another address")
	}
	if n, _ := Value(ns, "brand"); n.Str != "Intel(r) Xeon(r) CPU E-2286G @ 4.00GHz" {
		t.Errorf("brand %+v", n)
	}
	sd, _ := tok.Lookup("sd", 0, "sd0")
	io, err := tok.ReadIO(sd)
	if err != nil {
		t.Fatal(err)
	}
	if io.NRead != 1_234_567_168 || io.Reads != 45_210 || io.RTime != 123_456_789_012 {
		t.Errorf("sd0: %+v", io)
	}
	// The wrong reader for the type.
	if _, err := tok.ReadIO(misc); err == nil || !strings.Contains(err.Error(), "not io") {
		t.Errorf("ReadIO of a named kstat: %v", err)
	}
	if _, err := tok.ReadNamed(sd); err == nil || !strings.Contains(err.Error(), "not named") {
		t.Errorf("ReadNamed of an io kstat: %v", err)
	}
	// A KStat made by hand is read by its ID.
	ns, err = tok.ReadNamed(KStat{ID: 40, Module: "cpu", Name: "sys", Type: TypeNamed})
	if n, _ := Value(ns, "cpu_nsec_user"); err != nil || n.Uint != 152_345_678_900 {
		t.Errorf("by hand: %+v %v", n, err)
	}
}

func TestReadGrowsForLargerData(t *testing.T) {
	k := newFakeKernel()
	tok, _ := openFake(t, k)
	info, _ := tok.Lookup("cpu_info", 0, "cpu_info0")
	// The kstat's strings grew after the chain was read.
	long := strings.Repeat("x", 8000)
	for i := range k.chain {
		if k.chain[i].Kid == int32(info.ID) {
			k.chain[i].Named = slices.Clone(k.chain[i].Named)
			k.chain[i].Named[7].Str = long
		}
	}
	k.reads = nil
	ns, err := tok.ReadNamed(info)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := Value(ns, "brand"); n.Str != long {
		t.Errorf("brand of %d bytes, want %d", len(n.Str), len(long))
	}
	if len(k.reads) != 2 {
		t.Errorf("reads %v, want ENOMEM then success", k.reads)
	}
}

func TestReadRetriesWhenBusy(t *testing.T) {
	k := newFakeKernel()
	tok, pauses := openFake(t, k)
	misc, _ := tok.Lookup("unix", 0, "system_misc")
	k.busy[int32(misc.ID)] = 3
	if _, err := tok.ReadNamed(misc); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{busyPause, busyPause, busyPause}; !slices.Equal(*pauses, want) {
		t.Errorf("pauses %v, want %v", *pauses, want)
	}
	*pauses = nil
	k.busy[int32(misc.ID)] = 1000
	_, err := tok.ReadNamed(misc)
	if err == nil || !strings.Contains(err.Error(), "after 8 attempts") {
		t.Errorf("always busy: %v", err)
	}
	if len(*pauses) != maxAttempts {
		t.Errorf("%d pauses, want %d", len(*pauses), maxAttempts)
	}
}

func TestUpdate(t *testing.T) {
	k := newFakeKernel()
	tok, _ := openFake(t, k)
	old, _ := tok.Lookup("link", 0, "vioif0")
	misc, _ := tok.Lookup("unix", 0, "system_misc")

	k.reads = nil
	if changed, err := tok.Update(); changed || err != nil {
		t.Errorf("same chain id: changed %v, err %v", changed, err)
	}
	if len(k.reads) != 0 {
		t.Errorf("same chain id read %v", k.reads)
	}

	// vioif0 goes away, vioif1 comes.
	i := slices.IndexFunc(k.chain, func(e fixture.Entry) bool { return e.Name == "vioif0" })
	e := k.chain[i]
	e.Kid, e.Name = 131, "vioif1"
	k.chain = append(slices.Delete(k.chain, i, i+1), e)
	k.kcid += 2
	if changed, err := tok.Update(); !changed || err != nil {
		t.Fatalf("new chain id: changed %v, err %v", changed, err)
	}
	if _, ok := tok.Lookup("link", 0, "vioif0"); ok {
		t.Error("vioif0 still listed")
	}
	if k, ok := tok.Lookup("link", 0, "vioif1"); !ok || k.ID != 131 {
		t.Errorf("vioif1: %+v %v", k, ok)
	}
	if _, err := tok.ReadNamed(old); !errors.Is(err, ErrStale) {
		t.Errorf("read of a kstat that went away: %v, want ErrStale", err)
	}
	if _, err := tok.ReadNamed(misc); err != nil {
		t.Errorf("a KStat from before the change: %v", err)
	}
	if changed, _ := tok.Update(); changed {
		t.Error("second Update changed again")
	}
}

func TestClose(t *testing.T) {
	k := newFakeKernel()
	tok, _ := openFake(t, k)
	misc, _ := tok.Lookup("unix", 0, "system_misc")
	if err := tok.Close(); err != nil || !k.closed {
		t.Fatalf("Close: %v, device closed %v", err, k.closed)
	}
	if err := tok.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := tok.ReadNamed(misc); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ReadNamed after Close: %v", err)
	}
	if _, err := tok.Update(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Update after Close: %v", err)
	}
	if len(tok.All()) == 0 {
		t.Error("the headers read are gone after Close")
	}
}

func TestOpenFailsOnBadChain(t *testing.T) {
	k := newFakeKernel()
	k.chain[3], k.chain[4] = k.chain[4], k.chain[3] // KIDs out of order
	if _, err := open(k); !errors.Is(err, ErrParse) || !k.closed {
		t.Errorf("err %v (want ErrParse), device closed %v", err, k.closed)
	}
}

func TestConcurrentReads(t *testing.T) {
	tok, _ := openFake(t, newFakeKernel())
	var wg sync.WaitGroup
	for _, name := range []string{"system_misc", "system_pages"} {
		ks, _ := tok.Lookup("unix", 0, name)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					if _, err := tok.ReadNamed(ks); err != nil {
						t.Error(err)
						return
					}
					tok.Update()
				}
			}()
		}
	}
	wg.Wait()
}

func TestOpenElsewhere(t *testing.T) {
	if runtime.GOOS == "illumos" {
		t.Skip("illumos has /dev/kstat: see live_illumos_test.go")
	}
	_, err := Open()
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Open on %s: %v, want ErrUnsupported", runtime.GOOS, err)
	}
}
