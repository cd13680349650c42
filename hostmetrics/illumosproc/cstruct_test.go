package illumosproc

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"
)

// This file lays out the structures of <sys/procfs.h> from their
// declarations, field by field, with the alignment rules of the illumos
// LP64 ABI (each field at the next multiple of its own alignment, a
// structure aligned on its largest member and padded to a multiple of it).
// It computes the offsets independently of the constants the parsers use,
// checks the two against each other, and writes the test fixtures.

// ctype is a C type under LP64.
type ctype struct{ size, align int }

var (
	cChar   = ctype{1, 1}
	cShort  = ctype{2, 2}
	cInt    = ctype{4, 4} // int, pid_t, uid_t, gid_t, id_t, taskid_t, projid_t, poolid_t, zoneid_t, processorid_t, psetid_t
	cLong   = ctype{8, 8} // long, ulong_t, size_t, uintptr_t, dev_t, time_t
	cTimes  = ctype{16, 8}
	cSigset = ctype{16, 4} // sigset_t: uint_t __sigbits[4]
	cFltset = ctype{16, 4} // fltset_t: uint_t word[4]
	cSysset = ctype{64, 4} // sysset_t: uint_t word[16]
)

// cstruct is a laid-out C structure.
type cstruct struct {
	name   string
	fields []cfield
	size   int
	align  int
}

type cfield struct {
	name      string
	off, size int
}

func newStruct(name string) *cstruct { return &cstruct{name: name, align: 1} }

// field appends a member of type t, or an array of n of them when n > 1.
func (s *cstruct) field(name string, t ctype, n int) *cstruct {
	off := (s.size + t.align - 1) / t.align * t.align
	s.fields = append(s.fields, cfield{name, off, t.size * n})
	s.size = off + t.size*n
	s.align = max(s.align, t.align)
	return s
}

// nested appends a member that is a structure.
func (s *cstruct) nested(name string, sub *cstruct) *cstruct {
	return s.field(name, ctype{sub.size, sub.align}, 1)
}

// done pads the structure to a multiple of its alignment.
func (s *cstruct) done() *cstruct {
	s.size = (s.size + s.align - 1) / s.align * s.align
	return s
}

func (s *cstruct) off(name string) int {
	for _, f := range s.fields {
		if f.name == name {
			return f.off
		}
	}
	panic(fmt.Sprintf("%s has no field %s", s.name, name))
}

func (s *cstruct) fieldSize(name string) int {
	for _, f := range s.fields {
		if f.name == name {
			return f.size
		}
	}
	panic(fmt.Sprintf("%s has no field %s", s.name, name))
}

// The structures, in the order of their declarations in <sys/procfs.h>.

func lwpsinfoLayout() *cstruct {
	return newStruct("lwpsinfo_t").
		field("pr_flag", cInt, 1).
		field("pr_lwpid", cInt, 1).
		field("pr_addr", cLong, 1).
		field("pr_wchan", cLong, 1).
		field("pr_stype", cChar, 1).
		field("pr_state", cChar, 1).
		field("pr_sname", cChar, 1).
		field("pr_nice", cChar, 1).
		field("pr_syscall", cShort, 1).
		field("pr_oldpri", cChar, 1).
		field("pr_cpu", cChar, 1).
		field("pr_pri", cInt, 1).
		field("pr_pctcpu", cShort, 1).
		field("pr_pad", cShort, 1).
		field("pr_start", cTimes, 1).
		field("pr_time", cTimes, 1).
		field("pr_clname", cChar, 8). // PRCLSZ
		field("pr_name", cChar, 16).  // PRFNSZ
		field("pr_onpro", cInt, 1).
		field("pr_bindpro", cInt, 1).
		field("pr_bindpset", cInt, 1).
		field("pr_lgrp", cInt, 1).
		field("pr_filler", cInt, 4).
		done()
}

func psinfoLayout() *cstruct {
	return newStruct("psinfo_t").
		field("pr_flag", cInt, 1).
		field("pr_nlwp", cInt, 1).
		field("pr_pid", cInt, 1).
		field("pr_ppid", cInt, 1).
		field("pr_pgid", cInt, 1).
		field("pr_sid", cInt, 1).
		field("pr_uid", cInt, 1).
		field("pr_euid", cInt, 1).
		field("pr_gid", cInt, 1).
		field("pr_egid", cInt, 1).
		field("pr_addr", cLong, 1).
		field("pr_size", cLong, 1).
		field("pr_rssize", cLong, 1).
		field("pr_pad1", cLong, 1).
		field("pr_ttydev", cLong, 1).
		field("pr_pctcpu", cShort, 1).
		field("pr_pctmem", cShort, 1).
		field("pr_start", cTimes, 1).
		field("pr_time", cTimes, 1).
		field("pr_ctime", cTimes, 1).
		field("pr_fname", cChar, 16).  // PRFNSZ
		field("pr_psargs", cChar, 80). // PRARGSZ
		field("pr_wstat", cInt, 1).
		field("pr_argc", cInt, 1).
		field("pr_argv", cLong, 1).
		field("pr_envp", cLong, 1).
		field("pr_dmodel", cChar, 1).
		field("pr_pad2", cChar, 3).
		field("pr_taskid", cInt, 1).
		field("pr_projid", cInt, 1).
		field("pr_nzomb", cInt, 1).
		field("pr_poolid", cInt, 1).
		field("pr_zoneid", cInt, 1).
		field("pr_contract", cInt, 1).
		field("pr_filler", cInt, 1).
		nested("pr_lwp", lwpsinfoLayout()).
		done()
}

func prusageLayout() *cstruct {
	s := newStruct("prusage_t").
		field("pr_lwpid", cInt, 1).
		field("pr_count", cInt, 1)
	for _, n := range []string{"pr_tstamp", "pr_create", "pr_term", "pr_rtime", "pr_utime", "pr_stime",
		"pr_ttime", "pr_tftime", "pr_dftime", "pr_kftime", "pr_ltime", "pr_slptime", "pr_wtime", "pr_stoptime"} {
		s.field(n, cTimes, 1)
	}
	s.field("filltime", cTimes, 6)
	for _, n := range []string{"pr_minf", "pr_majf", "pr_nswap", "pr_inblk", "pr_oublk", "pr_msnd",
		"pr_mrcv", "pr_sigs", "pr_vctx", "pr_ictx", "pr_sysc", "pr_ioch"} {
		s.field(n, cLong, 1)
	}
	return s.field("filler", cLong, 10).done()
}

// pstatusLayout is pstatus_t without its last member, pr_lwp (an
// lwpstatus_t, whose registers make its size depend on the architecture).
func pstatusLayout() *cstruct {
	return newStruct("pstatus_t (process part)").
		field("pr_flags", cInt, 1).
		field("pr_nlwp", cInt, 1).
		field("pr_pid", cInt, 1).
		field("pr_ppid", cInt, 1).
		field("pr_pgid", cInt, 1).
		field("pr_sid", cInt, 1).
		field("pr_aslwpid", cInt, 1).
		field("pr_agentid", cInt, 1).
		field("pr_sigpend", cSigset, 1).
		field("pr_brkbase", cLong, 1).
		field("pr_brksize", cLong, 1).
		field("pr_stkbase", cLong, 1).
		field("pr_stksize", cLong, 1).
		field("pr_utime", cTimes, 1).
		field("pr_stime", cTimes, 1).
		field("pr_cutime", cTimes, 1).
		field("pr_cstime", cTimes, 1).
		field("pr_sigtrace", cSigset, 1).
		field("pr_flttrace", cFltset, 1).
		field("pr_sysentry", cSysset, 1).
		field("pr_sysexit", cSysset, 1).
		field("pr_dmodel", cChar, 1).
		field("pr_pad", cChar, 3).
		field("pr_taskid", cInt, 1).
		field("pr_projid", cInt, 1).
		field("pr_nzomb", cInt, 1).
		field("pr_zoneid", cInt, 1).
		field("pr_filler", cInt, 15).
		done()
}

func TestOffsetsMatchDeclarations(t *testing.T) {
	ps, lwp, us, st := psinfoLayout(), lwpsinfoLayout(), prusageLayout(), pstatusLayout()
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"sizeof(psinfo_t)", psinfoSize, ps.size},
		{"psinfo pr_nlwp", psinfoNLWP, ps.off("pr_nlwp")},
		{"psinfo pr_pid", psinfoPID, ps.off("pr_pid")},
		{"psinfo pr_ppid", psinfoPPID, ps.off("pr_ppid")},
		{"psinfo pr_rssize", psinfoRSSize, ps.off("pr_rssize")},
		{"psinfo pr_start", psinfoStart, ps.off("pr_start")},
		{"psinfo pr_time", psinfoTime, ps.off("pr_time")},
		{"psinfo pr_ctime", psinfoCTime, ps.off("pr_ctime")},
		{"psinfo pr_fname", psinfoFname, ps.off("pr_fname")},
		{"sizeof pr_fname", prfnsz, ps.fieldSize("pr_fname")},
		{"psinfo pr_lwp", psinfoLWP, ps.off("pr_lwp")},
		{"lwpsinfo pr_sname", lwpsinfoSname, lwp.off("pr_sname")},
		{"sizeof(lwpsinfo_t)", 128, lwp.size},
		{"sizeof(prusage_t)", prusageSize, us.size},
		{"prusage pr_term", prusageTerm, us.off("pr_term")},
		{"prusage pr_utime", prusageUTime, us.off("pr_utime")},
		{"prusage pr_stime", prusageSTime, us.off("pr_stime")},
		{"prusage pr_ttime", prusageTTime, us.off("pr_ttime")},
		{"prusage pr_minf", prusageMinF, us.off("pr_minf")},
		{"prusage pr_majf", prusageMajF, us.off("pr_majf")},
		{"prusage pr_inblk", prusageInBlk, us.off("pr_inblk")},
		{"prusage pr_oublk", prusageOuBlk, us.off("pr_oublk")},
		{"prusage pr_ioch", prusageIOCh, us.off("pr_ioch")},
		{"pstatus pr_pid", pstatusPID, st.off("pr_pid")},
		{"pstatus pr_utime", pstatusUTime, st.off("pr_utime")},
		{"pstatus pr_stime", pstatusSTime, st.off("pr_stime")},
		{"pstatus pr_cutime", pstatusCUTime, st.off("pr_cutime")},
		{"pstatus pr_cstime", pstatusCSTime, st.off("pr_cstime")},
		{"pstatus prefix end (pr_sigtrace)", pstatusPrefix, st.off("pr_sigtrace")},
	} {
		if c.got != c.want {
			t.Errorf("%s: the parser uses %d, the declaration gives %d", c.what, c.got, c.want)
		}
	}
}

// encoder writes the fields of one laid-out structure.
type encoder struct {
	s *cstruct
	b []byte
}

func encode(s *cstruct) *encoder { return &encoder{s: s, b: make([]byte, s.size)} }

// at returns the bytes of a field, or of a member of a nested structure
// named "outer.inner".
func (e *encoder) at(name string, sub *cstruct) []byte {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			off := e.s.off(name[:i])
			inner := &encoder{s: sub, b: e.b[off : off+sub.size]}
			return inner.at(name[i+1:], nil)
		}
	}
	off := e.s.off(name)
	return e.b[off : off+e.s.fieldSize(name)]
}

func (e *encoder) int32(name string, v int32) *encoder {
	binary.LittleEndian.PutUint32(e.at(name, nil), uint32(v))
	return e
}

func (e *encoder) uint64(name string, v uint64) *encoder {
	binary.LittleEndian.PutUint64(e.at(name, nil), v)
	return e
}

// times writes a timestruc_t.
func (e *encoder) times(name string, sec, nsec int64) *encoder {
	b := e.at(name, nil)
	binary.LittleEndian.PutUint64(b[0:], uint64(sec))
	binary.LittleEndian.PutUint64(b[8:], uint64(nsec))
	return e
}

// ms writes a timestruc_t of v milliseconds.
func (e *encoder) ms(name string, v int64) *encoder {
	return e.times(name, v/1000, v%1000*int64(time.Millisecond))
}

// chars writes a string into a char array, NUL padded.
func (e *encoder) chars(name, v string) *encoder {
	b := e.at(name, nil)
	clear(b)
	copy(b[:len(b)-1], v)
	return e
}

// lwpChar writes a char member of pr_lwp.
func (e *encoder) lwpChar(name string, v byte) *encoder {
	e.at("pr_lwp."+name, lwpsinfoLayout())[0] = v
	return e
}
