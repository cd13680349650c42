package illumosproc

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/proc from fixtureTree")

// fixtureProc describes one process of the fixture tree. Times are in
// milliseconds.
type fixtureProc struct {
	pid, ppid int32
	name      string
	lwps      int32
	rssKiB    uint64
	start     int64 // seconds since the epoch; 0 for a zombie
	zombie    bool  // pr_nlwp 0, pr_sname 'Z', pr_term set
	// own CPU (usage) and the reaped children's (status; psinfo's
	// pr_ctime is their sum)
	utime, stime, ttime int64
	cutime, cstime      int64
	minf, majf          uint64
	inblk, oublk, ioch  uint64
	// files left out: usage (the process was reaped after the listing),
	// status (another user's process: the file cannot be read)
	noUsage, noStatus bool
}

// fixtureTree is testdata/proc: a CI job (sh, 200) under the agent (100),
// next to processes that are not the job's. TestFixturesUpToDate keeps the
// files equal to what fixtureFiles writes from it.
var fixtureTree = []fixtureProc{
	{pid: 0, ppid: 0, name: "sched", lwps: 1, start: 1700000000},
	{pid: 1, ppid: 0, name: "init", lwps: 1, rssKiB: 1024, start: 1700000001, utime: 100, stime: 50},
	{pid: 100, ppid: 1, name: "jobtrace", lwps: 6, rssKiB: 20480, start: 1700001000, utime: 40, stime: 20, ttime: 5},
	// The job: its own CPU, and that of the commands it ran and reaped.
	{pid: 200, ppid: 100, name: "sh", lwps: 1, rssKiB: 2048, start: 1700001001,
		utime: 500, stime: 200, ttime: 50, cutime: 2500, cstime: 500, minf: 300, ioch: 4096},
	{pid: 201, ppid: 200, name: "make", lwps: 1, rssKiB: 4096, start: 1700001002,
		utime: 300, stime: 100, cutime: 1000, cstime: 200, inblk: 3, oublk: 1},
	// A compiler that has exited and waits for make to reap it: its usage
	// holds its own children's time, its status is gone.
	{pid: 202, ppid: 201, name: "cc", zombie: true,
		utime: 1400, stime: 300, cutime: 350, cstime: 50, minf: 900, majf: 2},
	{pid: 203, ppid: 201, name: "ld", lwps: 4, rssKiB: 8192, start: 1700001010,
		utime: 2000, stime: 500, ttime: 100, minf: 5000, majf: 7, inblk: 12, oublk: 40, ioch: 1 << 20},
	// A set-uid program: its status cannot be read.
	{pid: 204, ppid: 200, name: "sudo", lwps: 1, rssKiB: 1536, start: 1700001011,
		utime: 10, stime: 20, cutime: 400, cstime: 200, noStatus: true},
	// Listed, then reaped before its usage was read.
	{pid: 205, ppid: 200, name: "true", lwps: 1, rssKiB: 512, start: 1700001012, noUsage: true},
	{pid: 300, ppid: 1, name: "sshd", lwps: 1, rssKiB: 3072, start: 1700000100, utime: 70, stime: 30},
}

func (f *fixtureProc) psinfo() []byte {
	e := encode(psinfoLayout()).
		int32("pr_nlwp", f.lwps).
		int32("pr_pid", f.pid).
		int32("pr_ppid", f.ppid).
		int32("pr_pgid", f.pid).
		int32("pr_sid", 1).
		uint64("pr_size", f.rssKiB*2).
		uint64("pr_rssize", f.rssKiB).
		uint64("pr_ttydev", ^uint64(0)). // PRNODEV
		times("pr_start", f.start, 0).
		ms("pr_time", f.utime+f.stime+f.ttime).
		ms("pr_ctime", f.cutime+f.cstime).
		chars("pr_fname", f.name).
		chars("pr_psargs", f.name+" -x").
		int32("pr_argc", 2)
	e.b[e.s.off("pr_dmodel")] = 2 // PR_MODEL_LP64
	if f.zombie {
		e.int32("pr_nlwp", 0).uint64("pr_rssize", 0).uint64("pr_size", 0).times("pr_start", 0, 0).lwpChar("pr_sname", 'Z')
	} else {
		e.lwpChar("pr_sname", 'S')
	}
	return e.b
}

func (f *fixtureProc) usage() []byte {
	e := encode(prusageLayout()).
		int32("pr_count", f.lwps).
		times("pr_tstamp", 1700002000, 5).
		times("pr_create", f.start, 0).
		ms("pr_utime", f.utime).
		ms("pr_stime", f.stime).
		ms("pr_ttime", f.ttime).
		times("pr_slptime", 9, 0).
		uint64("pr_minf", f.minf).
		uint64("pr_majf", f.majf).
		uint64("pr_inblk", f.inblk).
		uint64("pr_oublk", f.oublk).
		uint64("pr_sysc", 1000).
		uint64("pr_ioch", f.ioch)
	if f.zombie {
		e.times("pr_term", 1700001999, 1)
	}
	return e.b
}

func (f *fixtureProc) status() []byte {
	return encode(pstatusLayout()).
		int32("pr_nlwp", f.lwps).
		int32("pr_pid", f.pid).
		int32("pr_ppid", f.ppid).
		uint64("pr_brkbase", 0x400000).
		ms("pr_utime", f.utime).
		ms("pr_stime", f.stime+f.ttime).
		ms("pr_cutime", f.cutime).
		ms("pr_cstime", f.cstime).
		int32("pr_zoneid", 0).b
}

// fixtureFiles returns the files of the fixture tree, by path under
// testdata/proc. status is written where the reader asks for it and the
// process has it; self is there to be skipped, as it is on illumos.
func fixtureFiles() map[string][]byte {
	files := map[string][]byte{}
	for i := range fixtureTree {
		f := &fixtureTree[i]
		dir := strconv.Itoa(int(f.pid))
		files[dir+"/psinfo"] = f.psinfo()
		if !f.noUsage {
			files[dir+"/usage"] = f.usage()
		}
		if !f.zombie && !f.noStatus {
			files[dir+"/status"] = f.status()
		}
		if f.pid == 100 {
			files["self/psinfo"] = f.psinfo()
		}
	}
	return files
}

func TestFixturesUpToDate(t *testing.T) {
	root := filepath.Join("testdata", "proc")
	want := fixtureFiles()
	if *update {
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		for name, data := range want {
			path := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		w, ok := want[filepath.ToSlash(rel)]
		switch {
		case !ok:
			t.Errorf("%s is not in fixtureTree", path)
		case !bytes.Equal(data, w):
			t.Errorf("%s differs from fixtureTree (go test -run TestFixturesUpToDate -update rewrites it)", path)
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("%d files under %s, fixtureTree has %d", seen, root, len(want))
	}
}
