package illumosproc

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func fixture(pid int32) *fixtureProc {
	for i := range fixtureTree {
		if fixtureTree[i].pid == pid {
			return &fixtureTree[i]
		}
	}
	panic(fmt.Sprint("no fixture process ", pid))
}

func TestParsePsinfo(t *testing.T) {
	var p Psinfo
	if err := parsePsinfo(fixture(203).psinfo(), &p); err != nil {
		t.Fatal(err)
	}
	want := Psinfo{
		PID: 203, PPID: 201, LWPs: 4, RSS: 8192 * 1024,
		Start:     time.Unix(1700001010, 0),
		Time:      2600 * time.Millisecond,
		ChildTime: 0,
		State:     'S',
	}
	copy(want.Fname[:], "ld")
	if p != want {
		t.Errorf("got  %+v\nwant %+v", p, want)
	}
	if p.Name() != "ld" || p.Zombie() {
		t.Errorf("Name %q, Zombie %v", p.Name(), p.Zombie())
	}

	if err := parsePsinfo(fixture(202).psinfo(), &p); err != nil {
		t.Fatal(err)
	}
	if !p.Zombie() || p.LWPs != 0 || p.RSS != 0 || !p.Start.IsZero() || p.ChildTime != 400*time.Millisecond {
		t.Errorf("zombie: %+v", p)
	}

	// A name of the full 15 bytes keeps its last byte.
	f := *fixture(203)
	f.name = "fifteen-bytes-x"
	if err := parsePsinfo(f.psinfo(), &p); err != nil || p.Name() != "fifteen-bytes-x" {
		t.Errorf("long name: %q, %v", p.Name(), err)
	}
}

func TestParsePrusage(t *testing.T) {
	var u Prusage
	if err := parsePrusage(fixture(203).usage(), &u); err != nil {
		t.Fatal(err)
	}
	want := Prusage{
		User: 2 * time.Second, System: 600 * time.Millisecond, // pr_stime + pr_ttime
		MinorFaults: 5000, MajorFaults: 7, InBlocks: 12, OutBlocks: 40, IOChars: 1 << 20,
	}
	if u != want {
		t.Errorf("got  %+v\nwant %+v", u, want)
	}
	if err := parsePrusage(fixture(202).usage(), &u); err != nil || !u.Exited {
		t.Errorf("zombie: Exited %v, %v", u.Exited, err)
	}
}

func TestParsePstatus(t *testing.T) {
	var s Pstatus
	data := fixture(200).status()
	// Only the prefix is read from the file.
	if err := parsePstatus(data[:pstatusPrefix], &s); err != nil {
		t.Fatal(err)
	}
	want := Pstatus{
		PID: 200, User: 500 * time.Millisecond, System: 250 * time.Millisecond,
		ChildUser: 2500 * time.Millisecond, ChildSystem: 500 * time.Millisecond,
	}
	if s != want {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
}

func TestParseErrors(t *testing.T) {
	var p Psinfo
	var u Prusage
	var s Pstatus
	good := fixture(200)

	badTime := good.psinfo()
	byteOrder.PutUint64(badTime[psinfoTime+8:], uint64(time.Second)) // tv_nsec out of range
	negSec := good.usage()
	byteOrder.PutUint64(negSec[prusageUTime:], ^uint64(0)) // tv_sec -1
	negPID := good.psinfo()
	byteOrder.PutUint32(negPID[psinfoPPID:], ^uint32(0))
	badStart := good.psinfo()
	byteOrder.PutUint64(badStart[psinfoStart+8:], ^uint64(0))

	for name, err := range map[string]error{
		"short psinfo":   parsePsinfo(good.psinfo()[:psinfoSize-1], &p),
		"empty psinfo":   parsePsinfo(nil, &p),
		"short usage":    parsePrusage(good.usage()[:100], &u),
		"short status":   parsePstatus(good.status()[:pstatusPrefix-1], &s),
		"bad pr_time":    parsePsinfo(badTime, &p),
		"negative utime": parsePrusage(negSec, &u),
		"negative ppid":  parsePsinfo(negPID, &p),
		"bad pr_start":   parsePsinfo(badStart, &p),
	} {
		if !errors.Is(err, ErrParse) {
			t.Errorf("%s: %v, want ErrParse", name, err)
		}
	}
}
