package guard

import (
	"bufio"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestControlLinesRoundTrip(t *testing.T) {
	var b []byte
	b = appendMsg(b, msgJob, "4242")
	b = appendMsg(b, msgOwner, "4241")
	b = appendMsg(b, msgSince, "123456")
	b = appendMsg(b, msgOrphan, "555 777")
	b = append(b, "orphan \"555\"\norphan \"x 1\"\n"...) // skipped
	b = appendMsg(b, msgCgroup, "/sys/fs/cgroup/jobtrace-1")
	b = appendMsg(b, msgDir, "/dev/shm/a dir\nwith a newline")
	b = appendMsg(b, msgEnv, "TRACEPARENT=00-aa-bb-01")
	b = append(b, "job notanumber\nenv \"NOEQUALS\"\nbogus \"x\"\njob \"1\"\n"...) // skipped
	tg := readControl(bufio.NewReader(strings.NewReader(string(b))))
	if tg.released {
		t.Error("released without a release line")
	}
	if tg.job != 4242 || tg.owner != 4241 || tg.since != 123456 || len(tg.orphans) != 1 || tg.orphans[555] != 777 || tg.cgroup != "/sys/fs/cgroup/jobtrace-1" ||
		len(tg.dirs) != 1 || tg.dirs[0] != "/dev/shm/a dir\nwith a newline" ||
		len(tg.env) != 1 || tg.env[0] != "TRACEPARENT=00-aa-bb-01" {
		t.Errorf("read %+v", tg)
	}
}

func TestReleaseStopsReading(t *testing.T) {
	b := appendMsg(appendMsg(nil, msgJob, "77"), msgRelease, "")
	b = appendMsg(b, msgJob, "88")
	tg := readControl(bufio.NewReader(strings.NewReader(string(b))))
	if !tg.released || tg.job != 77 {
		t.Errorf("read %+v", tg)
	}
}

func TestControlBytesAreBounded(t *testing.T) {
	big := strings.Repeat("x", MaxControlBytes)
	b := appendMsg(appendMsg(nil, msgJob, "77"), msgDir, big)
	b = appendMsg(b, msgCgroup, "/late")
	tg := readControl(bufio.NewReader(strings.NewReader(string(b))))
	if tg.job != 77 || len(tg.dirs) != 0 || tg.cgroup != "" {
		t.Errorf("read job %d, %d dirs, cgroup %q: lines past %d bytes were used", tg.job, len(tg.dirs), tg.cgroup, MaxControlBytes)
	}
}

func TestParseStat(t *testing.T) {
	s, ok := parseStat([]byte("4321 (my (weird) prog) S 1 4000 3999 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 1 0 987654 0 0\n"))
	if !ok || s.pid != 4321 || s.ppid != 1 || s.pgrp != 4000 || s.sid != 3999 || s.start != 987654 || s.zombie {
		t.Errorf("got %+v, %v", s, ok)
	}
	s, ok = parseStat([]byte("12 (z) Z 1 12 12 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0"))
	if !ok || !s.zombie {
		t.Errorf("zombie: %+v, %v", s, ok)
	}
	for _, bad := range []string{"", "12 (x", "x (y) S 1 2 3", "12 (y) S 1 2 3 4", "12 (y) S a 2 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestEnvironHas(t *testing.T) {
	env := []byte("PATH=/bin\x00TRACEPARENT=00-a-b-01\x00JOBTRACE_SOCKET=/x/sock\x00")
	if !environHas(env, []string{"JOBTRACE_SOCKET=/x/sock"}) || !environHas(env, []string{"nope=1", "TRACEPARENT=00-a-b-01"}) {
		t.Error("entry not found")
	}
	if environHas(env, []string{"JOBTRACE_SOCKET=/x"}) || environHas(env, []string{"TRACEPARENT=00-a-b-01\x00"}) || environHas(nil, []string{"A=1"}) {
		t.Error("prefix or garbage matched")
	}
	if !environHas([]byte("A=1"), []string{"A=1"}) {
		t.Error("last entry without NUL not found")
	}
}

// A tree as the guard finds it after jobtrace died: the job (100) was
// killed, its children re-parented to init.
func TestMembers(t *testing.T) {
	procs := []procStat{
		{pid: 1, ppid: 0, pgrp: 1, sid: 1, start: 0},            // init
		{pid: 50, ppid: 1, pgrp: 50, sid: 50, start: 10},        // started before the guard
		{pid: 90, ppid: 1, pgrp: 90, sid: 90, start: 999},       // the guard
		{pid: 101, ppid: 1, pgrp: 100, sid: 100, start: 1001},   // background child
		{pid: 102, ppid: 1, pgrp: 102, sid: 102, start: 1002},   // setsid daemon, job's env
		{pid: 103, ppid: 102, pgrp: 102, sid: 102, start: 1003}, // its child
		{pid: 104, ppid: 1, pgrp: 104, sid: 104, start: 1004},   // setsid, env cleared: escapes
		{pid: 105, ppid: 101, pgrp: 105, sid: 105, start: 1005}, // setsid child of a member
		{pid: 106, ppid: 1, pgrp: 106, sid: 106, start: 1006},   // unrelated, started later
		{pid: 107, ppid: 1, pgrp: 107, sid: 107, start: 1007},   // orphan jobtrace knew, env cleared
		{pid: 108, ppid: 1, pgrp: 108, sid: 108, start: 1010},   // pid of a known orphan, reused
		{pid: 109, ppid: 107, pgrp: 107, sid: 107, start: 1011}, // the orphan's child
		{pid: 51, ppid: 1, pgrp: 100, sid: 100, start: 20},      // old process, reused ids: never
	}
	env := map[int]string{102: "A=1\x00TRACEPARENT=t\x00", 50: "TRACEPARENT=t", 90: "TRACEPARENT=t", 106: "TRACEPARENT=u"}
	tg := &target{job: 100, env: []string{"TRACEPARENT=t"}, orphans: map[int]uint64{107: 1007, 108: 1008}}
	got := members(procs, tg, 999, 90, func(pid int) []byte { return []byte(env[pid]) })
	want := []int{101, 102, 103, 105, 107, 109}
	if len(got) != len(want) {
		t.Errorf("members %v, want %v", got, want)
	}
	for _, pid := range want {
		if _, ok := got[pid]; !ok {
			t.Errorf("%d is not a member: %v", pid, got)
		}
	}
	if got := members(procs, &target{}, 999, 90, func(int) []byte { return nil }); len(got) != 0 {
		t.Errorf("members of nothing: %v", got)
	}
}

// The guard runs in an init function before the rest of jobtrace is
// initialized, which works only while this package imports nothing but the
// standard library and these packages of jobtrace's, which import only the
// standard library and each other.
func TestOnlyTheStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	allowed := []string{"/internal/cgrouptree", "/internal/kernfmt", "/internal/procstat", "/supervise/guard"}
	for _, dep := range strings.Fields(string(out)) {
		if !slices.ContainsFunc(allowed, func(a string) bool { return dep == "github.com/jobtrace/jobtrace"+a }) {
			t.Errorf("non-standard dependency: %s", dep)
		}
	}
}
