package kstat

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	k := newFakeKernel()
	tok, _ := openFake(t, k)
	var b bytes.Buffer
	sel, _ := ParseSelector("sd")
	if err := tok.Dump(&b, sel, false); err != nil {
		t.Fatal(err)
	}
	want := `kstat chain id 142: 15 kstats, 2 match sd:*:*

KID  MODULE:INSTANCE:NAME  CLASS      TYPE  NDATA  DATA SIZE  FLAGS
87   sd:0:sd0              disk       io    1      80         -
89   sd:0:sd0,a            partition  io    1      80         -

sd:0:sd0 (kid 87, io, snaptime 3600000000000 ns)
  nread        1234567168
  nwritten     987654144
  reads        45210
  writes       30811
  wtime        0
  wlentime     0
  wlastupdate  3599995000000
  rtime        123456789012
  rlentime     130987654321
  rlastupdate  3599996000000
  wcnt         0
  rcnt         1

sd:0:sd0,a (kid 89, io, snaptime 3600000000000 ns)
  nread        1200000000
  nwritten     980000000
  reads        44000
  writes       30000
  wtime        0
  wlentime     0
  wlastupdate  0
  rtime        0
  rlentime     0
  rlastupdate  0
  wcnt         0
  rcnt         0
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	sel, _ = ParseSelector("cpu_info:0:cpu_info0")
	if err := tok.Dump(&b, sel, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"31   cpu_info:0:cpu_info0  misc   named  19     1053       virtual,var_size",
		"cpu_info:0:cpu_info0 (kid 31, named, 19 values, snaptime 3600000000000 ns)",
		`  fpu_type                  char    "i387 compatible"`,
		`  pg_id                     int64   -1`,
		`  brand                     string  "Intel(r) Xeon(r) CPU E-2286G @ 4.00GHz"`,
		`  socket_type               string  ""`,
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("missing line %q in:\n%s", line, b.String())
		}
	}

	// Headers only; raw kstats are listed, not read.
	b.Reset()
	k.reads = nil
	if err := tok.Dump(&b, Selector{Module: "unix", Instance: -1}, true); err != nil {
		t.Fatal(err)
	}
	if len(k.reads) != 0 || strings.Contains(b.String(), "(kid") || !strings.Contains(b.String(), "0    unix:0:kstat_headers  kstat  raw    15     2760       virtual,var_size\n") {
		t.Errorf("headers only (reads %v):\n%s", k.reads, b.String())
	}

	// No match.
	b.Reset()
	if err := tok.Dump(&b, Selector{Module: "nfs", Instance: -1}, false); err != nil || b.String() != "kstat chain id 142: 15 kstats, 0 match nfs:*:*\n" {
		t.Errorf("no match: %v %q", err, b.String())
	}

	// A kstat that went away: an error line, the others still written.
	k.chain = k.chain[:len(k.chain)-1] // link:0:vioif0
	b.Reset()
	err := tok.Dump(&b, Selector{Module: "link", Instance: -1}, false)
	if !errors.Is(err, ErrStale) || !strings.Contains(b.String(), "\nlink:0:vioif0 (kid 120, named)\n  error: kstat: read link:0:vioif0: ") {
		t.Errorf("stale: %v\n%s", err, b.String())
	}
}
