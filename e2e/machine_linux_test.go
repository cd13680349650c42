package e2e

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// probeMachine reads, from the kernel files jobtrace reads on Linux
// (docs/metrics.md), which of its figures this machine gives. It reads them
// itself, not through jobtrace, so a metric missing from what the collector
// received is jobtrace's fault, and one the machine cannot give is not
// asked for.
func probeMachine(workDir string) machine {
	m := machine{
		supported: true,
		figures:   map[string]figure{},
		pressure:  map[[2]string]bool{},
	}
	readable := func(path string) bool {
		_, err := os.ReadFile(path)
		return err == nil
	}
	give := func(path string, names ...string) {
		f := figure{state: figureGiven, why: path}
		if !readable(path) {
			f = figure{state: figureAbsent, why: path + " is not readable"}
		}
		for _, n := range names {
			m.figures[n] = f
		}
	}

	give("/proc/stat", "system.cpu.time", "system.cpu.utilization")
	give("/proc/meminfo", "system.memory.usage", "system.memory.utilization")
	give("/proc/vmstat", "system.paging.faults")
	give("/proc/loadavg", "jobtrace.system.cpu.load_average.1m",
		"jobtrace.system.cpu.load_average.5m", "jobtrace.system.cpu.load_average.15m")
	// The job's process tree: stat and statm of its processes.
	give("/proc/self/stat", "process.cpu.time", "process.memory.usage", "process.thread.count",
		"jobtrace.process.count", "jobtrace.phase.cpu.time", "jobtrace.phase.memory.peak",
		"jobtrace.job.cpu.time", "jobtrace.job.memory.peak")
	give("/proc/self/io", "process.disk.io", "jobtrace.phase.disk.io")
	m.figures["jobtrace.phase.duration"] = figure{state: figureGiven, why: "always"}
	m.figures["jobtrace.phase.verdicts"] = figure{state: figureGiven, why: "every phase with usage has a verdict"}
	m.figures["jobtrace.job.duration"] = figure{state: figureGiven, why: "always"}
	// Points only for what jobtrace dropped; the metrics job sends nothing
	// it would drop.
	m.figures["jobtrace.dropped"] = figure{state: figureAbsent, why: "the metrics job sends nothing jobtrace drops"}

	disks := wholeDisks()
	f := figure{state: figureGiven, why: "whole non-virtual disks " + strings.Join(disks, ", ")}
	if len(disks) == 0 {
		f = figure{state: figureAbsent, why: "no whole, non-virtual disk in /proc/diskstats"}
	}
	for _, n := range []string{"system.disk.io", "system.disk.operations", "system.disk.io_time"} {
		m.figures[n] = f
	}

	ifaces := interfaces()
	f = figure{state: figureGiven, why: "interfaces " + strings.Join(ifaces, ", ")}
	if len(ifaces) == 0 {
		f = figure{state: figureAbsent, why: "no interface in /proc/net/dev"}
	}
	for _, n := range []string{"system.network.io", "system.network.packet.count", "system.network.errors"} {
		m.figures[n] = f
	}

	var st syscall.Statfs_t
	if err := syscall.Statfs(".", &st); err == nil {
		m.figures["system.filesystem.usage"] = figure{state: figureGiven, why: "statfs of the working directory"}
	} else {
		m.figures["system.filesystem.usage"] = figure{state: figureAbsent, why: "statfs: " + err.Error()}
	}
	if err := syscall.Statfs(workDir, &st); err == nil {
		// tmpfs and ramfs: written bytes never reach a block device, so
		// they are not storage IO.
		const tmpfsMagic, ramfsMagic = 0x01021994, 0x858458f6
		m.writesReachDisk = st.Type != tmpfsMagic && st.Type != ramfsMagic
	}

	// Machine-wide pressure: one (resource, kind) per line of the files,
	// except cpu/full, which jobtrace leaves out (docs/metrics.md).
	for _, res := range []string{"cpu", "memory", "io"} {
		data, err := os.ReadFile("/proc/pressure/" + res)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			kind, _, _ := strings.Cut(line, " ")
			if (kind == "some" || kind == "full") && !(res == "cpu" && kind == "full") {
				m.pressure[[2]string{res, kind}] = true
			}
		}
	}
	if len(m.pressure) > 0 {
		m.figures["jobtrace.system.pressure.stall"] = figure{state: figureGiven, why: "/proc/pressure"}
	} else {
		m.figures["jobtrace.system.pressure.stall"] = figure{state: figureAbsent, why: "no /proc/pressure files"}
	}

	m.probeCgroup()
	m.hostID = machineID()
	return m
}

// probeCgroup finds the cgroup v2 jobtrace reads: its own (when it may make
// a child for the job there, the child's files depend on the controllers
// this one offers). cpu.stat and the pressure files exist in every cgroup;
// memory.current and io.stat only with their controller.
func (m *machine) probeCgroup() {
	absent := func(why string, names ...string) {
		for _, n := range names {
			m.figures[n] = figure{state: figureAbsent, why: why}
		}
	}
	all := []string{"container.cpu.time", "container.memory.usage", "container.disk.io", "jobtrace.container.pressure.stall"}
	dir, why := ownCgroup2()
	if dir == "" {
		absent(why, all...)
		return
	}
	has := func(file string) bool {
		_, err := os.Stat(filepath.Join(dir, file))
		return err == nil
	}
	if has("cpu.stat") {
		m.figures["container.cpu.time"] = figure{state: figureGiven, why: dir + "/cpu.stat"}
	} else {
		absent(dir+" has no cpu.stat", "container.cpu.time")
	}
	if has("cpu.pressure") {
		m.figures["jobtrace.container.pressure.stall"] = figure{state: figureGiven, why: dir + "/cpu.pressure"}
	} else {
		absent(dir+" has no pressure files", "jobtrace.container.pressure.stall")
	}
	offered := strings.Fields(readString(filepath.Join(dir, "cgroup.controllers")))
	enabled := strings.Fields(readString(filepath.Join(dir, "cgroup.subtree_control")))
	for _, c := range []struct{ controller, file, metric string }{
		{"memory", "memory.current", "container.memory.usage"},
		{"io", "io.stat", "container.disk.io"},
	} {
		switch {
		case has(c.file):
			m.figures[c.metric] = figure{state: figureGiven, why: dir + "/" + c.file}
		case slices.Contains(enabled, c.controller):
			m.figures[c.metric] = figure{state: figureGiven, why: dir + " enables " + c.controller + " for its children"}
		case slices.Contains(offered, c.controller):
			// jobtrace tries to enable it for the job's cgroup; the kernel
			// may refuse (a non-root cgroup that holds processes).
			m.figures[c.metric] = figure{state: figureMaybe, why: dir + " offers " + c.controller + " but does not enable it for its children"}
		default:
			absent(dir+" has no "+c.controller+" controller (cgroup.controllers: "+strings.Join(offered, " ")+")", c.metric)
		}
	}
}

// ownCgroup2 returns the directory of this process's cgroup v2, or why there
// is none.
func ownCgroup2() (dir, why string) {
	var mount string
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err.Error()
	}
	for _, line := range strings.Split(string(data), "\n") {
		// ID parent major:minor root mountpoint options [optional...] - fstype source options
		pre, post, ok := strings.Cut(line, " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(after) >= 1 && after[0] == "cgroup2" && fields[3] == "/" {
			mount = fields[4]
			break
		}
	}
	if mount == "" {
		return "", "no cgroup v2 mount in /proc/self/mountinfo"
	}
	data, err = os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err.Error()
	}
	for _, line := range strings.Split(string(data), "\n") {
		if path, ok := strings.CutPrefix(line, "0::"); ok {
			dir := filepath.Join(mount, path)
			if _, err := os.Stat(dir); err != nil {
				return "", "this process's cgroup v2 " + dir + " is not visible: " + err.Error()
			}
			return dir, ""
		}
	}
	return "", "no cgroup v2 line in /proc/self/cgroup"
}

// wholeDisks lists the disks of /proc/diskstats that jobtrace reports: not a
// partition, not a virtual device (loop, ram, zram, device mapper...).
func wholeDisks() []string {
	f, err := os.Open("/proc/diskstats")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		name := fields[2]
		sys := filepath.Join("/sys/class/block", name)
		target, err := filepath.EvalSymlinks(sys)
		if err != nil || strings.Contains(target, "/devices/virtual/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
			continue
		}
		out = append(out, name)
	}
	return out
}

// interfaces lists the interfaces of /proc/net/dev.
func interfaces() []string {
	data, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		name, _, ok := strings.Cut(line, ":")
		if ok && !strings.Contains(name, "|") {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// machineID is the host.id docs/resource.md says jobtrace reports: the
// machine ID, except in a container or when it is systemd's placeholder.
func machineID() string {
	for _, f := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(f); err == nil {
			return ""
		}
	}
	for _, f := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		id := strings.TrimSpace(readString(f))
		if id == "" {
			continue
		}
		if id == "uninitialized" || strings.Trim(id, "0") == "" {
			return ""
		}
		return id
	}
	return ""
}

func readString(path string) string {
	data, _ := os.ReadFile(path)
	return string(bytes.TrimSpace(data))
}
