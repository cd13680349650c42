package usagecsv

import (
	"strconv"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// Column is one column of the file. columns is the only list of them: the
// header, the rows and docs/csv.md all follow it.
type Column struct {
	// Name is the header, in snake_case, with the unit as suffix for
	// numbers.
	Name string
	// Unit of the values: s, bytes, %, count, tasks, text, or RFC 3339
	// for the time.
	Unit string
	// Delta is set for a cumulative counter written as its change since
	// the last row that read it, by the rule of package monotonic: empty
	// in the row of its first reading and in that of a reading lower than
	// the last (a reset), and in a row that could not read it, whose
	// change the next row that reads it counts.
	Delta bool
	// Help says what the value is, in one sentence or two.
	Help string
	// Source names where the value comes from: a Linux file, a system
	// call, or jobtrace itself.
	Source string

	// cell appends the value for row r to b, or nothing when it is absent.
	cell func(b []byte, r *row) []byte
}

// row is what a cell is formatted from.
type row struct {
	cur   *hostmetrics.Sample
	prev  *hostmetrics.Sample // the sample of the previous row written; nil for the first
	start time.Time           // the time of the first row written
	phase Phase
	mark  *mark // the current column's, as the rows written left it
	// hostCPU and jobCPU are host_cpu_pct's and job_cpu_pct's spans, as
	// the rows written left them: the row's own copies, which the Writer
	// keeps once the row is written.
	hostCPU *usage.HostCPU
	jobCPU  *usage.JobCPU
}

// mark is what a column of a counter keeps of the last row that read it:
// the counter (monotonic.Counter, of the column's type) and where the
// reading was made (a figure of the job's: its cgroup or its tree). The
// Writer keeps one per column, and changes them only with a row written,
// so that a row lost to a write error has its changes counted by the next.
type mark struct {
	u    monotonic.Counter[uint64]
	d    monotonic.Counter[time.Duration]
	f    monotonic.Counter[float64]
	from hostmetrics.From
}

// readFrom says where the reading the mark takes next was made: made
// elsewhere than the last one, it is of another counter, so the mark's
// counters restart and its change is unknown.
func (m *mark) readFrom(from hostmetrics.From) {
	if from != m.from {
		*m = mark{from: from}
	}
}

// columns lists the columns in file order. New columns are only appended.
var columns = []Column{
	{Name: "time_utc", Unit: "RFC 3339",
		Help:   "When the sample was taken, in UTC, with milliseconds.",
		Source: "agent clock",
		cell:   func(b []byte, r *row) []byte { return appendTime(b, r.cur.Time) }},
	{Name: "elapsed_s", Unit: "s",
		Help:   "Time since the first row.",
		Source: "agent clock",
		cell: func(b []byte, r *row) []byte {
			if r.prev == nil {
				return append(b, '0')
			}
			return appendDuration(b, r.cur.Time.Sub(r.start))
		}},
	{Name: "reason", Unit: "text",
		Help:   "Why the sample was taken: start (as the job starts), interval, boundary (a phase began or ended), end (after the job exited).",
		Source: "sampler",
		cell:   func(b []byte, r *row) []byte { return appendField(b, r.cur.Reason.String()) }},
	{Name: "phase", Unit: "text",
		Help:   "The name of the active phase: the innermost one open, the phases around it left out (phase_depth and phase_span_id place it); empty outside any phase.",
		Source: "phase tracker",
		cell:   func(b []byte, r *row) []byte { return appendField(b, r.phase.Name) }},

	{Name: "job_cpu_user_s", Unit: "s", Delta: true,
		Help:   "CPU time the job spent in user mode since the previous row: its own cgroup when it has one, else its process tree, exited processes included.",
		Source: "cgroup cpu.stat user_usec, else /proc/<pid>/stat",
		cell:   deltaDuration(jobCPUUser, jobCPUFrom)},
	{Name: "job_cpu_system_s", Unit: "s", Delta: true,
		Help:   "CPU time the job spent in kernel mode since the previous row, from the same place.",
		Source: "cgroup cpu.stat system_usec, else /proc/<pid>/stat",
		cell:   deltaDuration(jobCPUSystem, jobCPUFrom)},
	{Name: "job_cpu_pct", Unit: "%",
		Help:   "The job's CPU time as a share of all CPUs over the last span of at least 200 ms ended by the row, which rows sooner after it repeat: 100 means every CPU was busy with the job.",
		Source: "cgroup cpu.stat, else /proc/<pid>/stat",
		cell:   jobCPUPct},
	{Name: "job_memory_bytes", Unit: "bytes",
		Help:   "Memory the job uses: its own cgroup's memory.current (page cache included) when the memory controller is on, else job_rss_bytes.",
		Source: "cgroup memory.current, else /proc/<pid>/statm",
		cell:   gauge(jobMemory)},
	{Name: "job_rss_bytes", Unit: "bytes",
		Help:   "Resident memory summed over the live processes of the job's tree.",
		Source: "/proc/<pid>/statm",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return s.Job.Tree.RSS, walked(s) })},
	{Name: "job_processes_count", Unit: "count",
		Help:   "Live processes in the job's tree.",
		Source: "/proc/<pid>/task/<tid>/children, or the job's own cgroup's cgroup.procs",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return uint64(s.Job.Tree.Processes), walked(s) })},
	{Name: "job_threads_count", Unit: "count",
		Help:   "Threads of the live processes in the job's tree.",
		Source: "/proc/<pid>/stat",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return uint64(s.Job.Tree.Threads), walked(s) })},
	{Name: "job_read_bytes", Unit: "bytes", Delta: true,
		Help:   "Bytes the job read from storage since the previous row: its own cgroup when the io controller is on, else its process tree.",
		Source: "cgroup io.stat rbytes, else /proc/<pid>/io read_bytes",
		cell:   deltaUint(jobRead, jobIOFrom)},
	{Name: "job_write_bytes", Unit: "bytes", Delta: true,
		Help:   "Bytes the job wrote to storage since the previous row, from the same place.",
		Source: "cgroup io.stat wbytes, else /proc/<pid>/io write_bytes",
		cell:   deltaUint(jobWrite, jobIOFrom)},
	{Name: "job_cpu_pressure_some_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which some of the job's tasks waited for a CPU (the job's own cgroup only).",
		Source: "cgroup cpu.pressure",
		cell:   deltaDuration(jobPressure(cpuSome), nil)},
	{Name: "job_memory_pressure_some_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which some of the job's tasks waited for memory (the job's own cgroup only).",
		Source: "cgroup memory.pressure",
		cell:   deltaDuration(jobPressure(memorySome), nil)},
	{Name: "job_memory_pressure_full_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which all of the job's non-idle tasks waited for memory at once (the job's own cgroup only).",
		Source: "cgroup memory.pressure",
		cell:   deltaDuration(jobPressure(memoryFull), nil)},
	{Name: "job_io_pressure_some_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which some of the job's tasks waited for IO (the job's own cgroup only).",
		Source: "cgroup io.pressure",
		cell:   deltaDuration(jobPressure(ioSome), nil)},
	{Name: "job_io_pressure_full_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which all of the job's non-idle tasks waited for IO at once (the job's own cgroup only).",
		Source: "cgroup io.pressure",
		cell:   deltaDuration(jobPressure(ioFull), nil)},
	{Name: "job_cpu_throttled_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which the job was held back by the CPU limit of its own cgroup (when the cpu controller is on).",
		Source: "cgroup cpu.stat throttled_usec",
		cell:   deltaDuration(jobThrottled, nil)},
	{Name: "job_oom_kills_count", Unit: "count", Delta: true,
		Help:   "Processes of the job killed by the OOM killer since the previous row (the job's own cgroup only).",
		Source: "cgroup memory.events oom_kill",
		cell:   deltaUint(jobOOMKills, nil)},

	{Name: "host_cpus_count", Unit: "count",
		Help:   "Online CPUs: what the _pct columns are shares of.",
		Source: "/proc/stat",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return uint64(s.Host.NumCPU), s.Host.NumCPU > 0 })},
	{Name: "host_cpu_pct", Unit: "%",
		Help:   "Share of all CPUs not idle over the last span of at least 200 ms ended by the row, which rows sooner after it repeat; iowait counts as idle, as in top.",
		Source: "/proc/stat",
		cell:   hostCPUPct},
	{Name: "host_cpu_user_s", Unit: "s", Delta: true,
		Help:   "CPU time of all CPUs together in user mode since the previous row, niced processes included.",
		Source: "/proc/stat user, nice",
		cell:   deltaSeconds(hostCPU(func(c *hostmetrics.CPUTimes) float64 { return c.User + c.Nice }))},
	{Name: "host_cpu_system_s", Unit: "s", Delta: true,
		Help:   "CPU time of all CPUs together in kernel mode since the previous row, interrupts not included.",
		Source: "/proc/stat system",
		cell:   deltaSeconds(hostCPU(func(c *hostmetrics.CPUTimes) float64 { return c.System }))},
	{Name: "host_cpu_iowait_s", Unit: "s", Delta: true,
		Help:   "Idle CPU time while IO was outstanding, all CPUs together, since the previous row.",
		Source: "/proc/stat iowait",
		cell:   deltaSeconds(hostCPU(func(c *hostmetrics.CPUTimes) float64 { return c.IOWait }))},
	{Name: "host_cpu_steal_s", Unit: "s", Delta: true,
		Help:   "CPU time the hypervisor gave to other machines while this one wanted it (a noisy neighbour), all CPUs together, since the previous row.",
		Source: "/proc/stat steal",
		cell:   deltaSeconds(hostCPU(func(c *hostmetrics.CPUTimes) float64 { return c.Steal }))},
	{Name: "host_memory_used_bytes", Unit: "bytes",
		Help:   "Memory in use: total memory less what is available.",
		Source: "/proc/meminfo MemTotal, MemAvailable",
		cell:   gauge(hostMemory(func(m *hostmetrics.Memory) uint64 { return m.Used }))},
	{Name: "host_memory_available_bytes", Unit: "bytes",
		Help:   "Memory available to new work without swapping, page cache that can be dropped included.",
		Source: "/proc/meminfo MemAvailable",
		cell:   gauge(hostMemory(func(m *hostmetrics.Memory) uint64 { return m.Available }))},
	{Name: "host_swap_used_bytes", Unit: "bytes",
		Help:   "Swap space in use.",
		Source: "/proc/meminfo SwapTotal, SwapFree",
		cell:   gauge(hostMemory(func(m *hostmetrics.Memory) uint64 { return m.SwapUsed }))},
	{Name: "host_page_faults_major_count", Unit: "count", Delta: true,
		Help:   "Page faults that had to wait for IO since the previous row.",
		Source: "/proc/vmstat pgmajfault",
		cell:   deltaUint(func(s *hostmetrics.Sample) (uint64, bool) { return s.Host.Paging.Major, s.Host.HasPaging }, nil)},
	hostDiskColumn("host_disk_read_bytes", "bytes",
		"Bytes read from the machine's disks since the previous row: whole disks, not partitions, loop, ram or zram devices.",
		func(d *hostmetrics.DiskIO) uint64 { return d.ReadBytes }),
	hostDiskColumn("host_disk_write_bytes", "bytes", "Bytes written to the same disks since the previous row.",
		func(d *hostmetrics.DiskIO) uint64 { return d.WrittenBytes }),
	hostDiskColumn("host_disk_reads_count", "count", "Reads the same disks completed since the previous row.",
		func(d *hostmetrics.DiskIO) uint64 { return d.Reads }),
	hostDiskColumn("host_disk_writes_count", "count", "Writes the same disks completed since the previous row.",
		func(d *hostmetrics.DiskIO) uint64 { return d.Writes }),
	hostNetColumn("host_net_rx_bytes", "Bytes received on every network interface but loopback since the previous row.",
		func(n *hostmetrics.NetIO) uint64 { return n.RxBytes }),
	hostNetColumn("host_net_tx_bytes", "Bytes sent on every network interface but loopback since the previous row.",
		func(n *hostmetrics.NetIO) uint64 { return n.TxBytes }),
	{Name: "host_load1", Unit: "tasks",
		Help:   "Load average over one minute: runnable and uninterruptible tasks, averaged.",
		Source: "/proc/loadavg",
		cell: func(b []byte, r *row) []byte {
			if !r.cur.Host.HasLoad {
				return b
			}
			return appendFixed2(b, r.cur.Host.Load.Load1)
		}},
	{Name: "host_procs_running_count", Unit: "count",
		Help:   "Runnable tasks (threads) at the sample.",
		Source: "/proc/loadavg",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return s.Host.Load.Running, s.Host.HasLoad })},
	{Name: "host_procs_total_count", Unit: "count",
		Help:   "Tasks (threads) that exist at the sample.",
		Source: "/proc/loadavg",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return s.Host.Load.Total, s.Host.HasLoad })},
	{Name: "host_cpu_pressure_some_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which some task on the machine waited for a CPU.",
		Source: "/proc/pressure/cpu",
		cell:   deltaDuration(hostPressure(cpuSome), nil)},
	{Name: "host_memory_pressure_some_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which some task on the machine waited for memory.",
		Source: "/proc/pressure/memory",
		cell:   deltaDuration(hostPressure(memorySome), nil)},
	{Name: "host_io_pressure_some_s", Unit: "s", Delta: true,
		Help:   "Time since the previous row in which some task on the machine waited for IO.",
		Source: "/proc/pressure/io",
		cell:   deltaDuration(hostPressure(ioSome), nil)},

	{Name: "fs_used_bytes", Unit: "bytes",
		Help:   "Space used on the file system that holds the job's working directory.",
		Source: "statfs(2)",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return s.Host.FS.Used, s.Host.HasFS })},
	{Name: "fs_free_bytes", Unit: "bytes",
		Help:   "Space on that file system still free to unprivileged users.",
		Source: "statfs(2)",
		cell:   gauge(func(s *hostmetrics.Sample) (uint64, bool) { return s.Host.FS.Free, s.Host.HasFS })},
	{Name: "phase_depth", Unit: "level",
		Help:   "How deep the active phase is: 1 for a phase directly under the job, 2 for a phase inside it, and so on; empty outside any phase.",
		Source: "phase tracker",
		cell: func(b []byte, r *row) []byte {
			if r.phase.Depth <= 0 {
				return b
			}
			return strconv.AppendInt(b, int64(r.phase.Depth), 10)
		}},
	{Name: "phase_span_id", Unit: "text",
		Help:   "The span id of the active phase (16 hex digits), as in spans.otlp.jsonl and the trace: it tells apart phases of the same name, and leads to the phases around it; empty outside any phase.",
		Source: "phase tracker",
		cell:   func(b []byte, r *row) []byte { return append(b, r.phase.SpanID...) }},
}

// A cell is made of a getter that reads one figure of a sample and says
// whether it is present, wrapped by gauge (the value at the sample) or by a
// delta* function (the change since the previous row).

func gauge(get func(*hostmetrics.Sample) (uint64, bool)) func([]byte, *row) []byte {
	return func(b []byte, r *row) []byte {
		if v, ok := get(r.cur); ok {
			b = appendUint(b, v)
		}
		return b
	}
}

// deltaUint writes the change of a counter since the last row that read
// it (mark), by the rule of package monotonic: nothing when get says the
// figure is absent from the row's sample, nor for a change that is not
// known (the first reading, a reset). from, if not nil, says where the
// figure was read: a change of place restarts the counter.
func deltaUint(get func(*hostmetrics.Sample) (uint64, bool), from func(*hostmetrics.Sample) hostmetrics.From) func([]byte, *row) []byte {
	return delta(get, from, func(m *mark) *monotonic.Counter[uint64] { return &m.u }, appendUint)
}

// deltaDuration is deltaUint for a counter of time, written in seconds.
func deltaDuration(get func(*hostmetrics.Sample) (time.Duration, bool), from func(*hostmetrics.Sample) hostmetrics.From) func([]byte, *row) []byte {
	return delta(get, from, func(m *mark) *monotonic.Counter[time.Duration] { return &m.d }, appendDuration)
}

// deltaSeconds is deltaUint for a counter of seconds.
func deltaSeconds(get func(*hostmetrics.Sample) (float64, bool)) func([]byte, *row) []byte {
	return delta(get, nil, func(m *mark) *monotonic.Counter[float64] { return &m.f }, appendSeconds)
}

func delta[T monotonic.Number](get func(*hostmetrics.Sample) (T, bool), from func(*hostmetrics.Sample) hostmetrics.From,
	counter func(*mark) *monotonic.Counter[T], put func([]byte, T) []byte) func([]byte, *row) []byte {
	return func(b []byte, r *row) []byte {
		v, ok := get(r.cur)
		if !ok {
			return b // no reading: the next one's change runs from the last
		}
		if from != nil {
			r.mark.readFrom(from(r.cur))
		}
		if d, ok := counter(r.mark).Next(v); ok {
			b = put(b, d)
		}
		return b
	}
}

func jobCPUUser(s *hostmetrics.Sample) (time.Duration, bool) {
	u, _, ok := s.Job.CPU()
	return u, ok && s.ReadNow(s.Job.CPUFrom())
}

func jobCPUSystem(s *hostmetrics.Sample) (time.Duration, bool) {
	_, sys, ok := s.Job.CPU()
	return sys, ok && s.ReadNow(s.Job.CPUFrom())
}

// jobCPUFrom says where the job's CPU time was read. Its cgroup and its
// tree count differently (the tree misses processes reaped before they
// were seen): the change from one to the other is unknown.
func jobCPUFrom(s *hostmetrics.Sample) hostmetrics.From { return s.Job.CPUFrom() }

func jobMemory(s *hostmetrics.Sample) (uint64, bool) { return s.MemoryNow() }

// walked says whether the job's tree was walked for s (Sample.ReadNow): a
// large tree is walked less often than samples are taken, and the cells of
// the samples in between are left empty, the next walked row's deltas
// covering them.
func walked(s *hostmetrics.Sample) bool { return s.ReadNow(hostmetrics.FromTree) }

func jobRead(s *hostmetrics.Sample) (uint64, bool) {
	r, _, ok := s.Job.IO()
	return r, ok && s.ReadNow(s.Job.IOFrom())
}

func jobWrite(s *hostmetrics.Sample) (uint64, bool) {
	_, w, ok := s.Job.IO()
	return w, ok && s.ReadNow(s.Job.IOFrom())
}

// jobIOFrom is jobCPUFrom for Job.IO.
func jobIOFrom(s *hostmetrics.Sample) hostmetrics.From { return s.Job.IOFrom() }

func jobThrottled(s *hostmetrics.Sample) (time.Duration, bool) {
	cg, ok := s.Job.OwnCgroup()
	if !ok {
		return 0, false
	}
	return cg.Throttled, cg.HasThrottled
}

func jobOOMKills(s *hostmetrics.Sample) (uint64, bool) {
	cg, ok := s.Job.OwnCgroup()
	if !ok {
		return 0, false
	}
	return cg.OOMKills, cg.HasOOMKills
}

// stallLine picks one line of a PressureSet.
type stallLine func(p *hostmetrics.PressureSet) (time.Duration, bool)

func cpuSome(p *hostmetrics.PressureSet) (time.Duration, bool) {
	return p.CPU.Some, p.CPU.HasSome
}

func memorySome(p *hostmetrics.PressureSet) (time.Duration, bool) {
	return p.Memory.Some, p.Memory.HasSome
}

func memoryFull(p *hostmetrics.PressureSet) (time.Duration, bool) {
	return p.Memory.Full, p.Memory.HasFull
}

func ioSome(p *hostmetrics.PressureSet) (time.Duration, bool) {
	return p.IO.Some, p.IO.HasSome
}

func ioFull(p *hostmetrics.PressureSet) (time.Duration, bool) {
	return p.IO.Full, p.IO.HasFull
}

func jobPressure(line stallLine) func(*hostmetrics.Sample) (time.Duration, bool) {
	return func(s *hostmetrics.Sample) (time.Duration, bool) {
		p, ok := s.Job.Pressure()
		if !ok {
			return 0, false
		}
		return line(&p)
	}
}

func hostPressure(line stallLine) func(*hostmetrics.Sample) (time.Duration, bool) {
	return func(s *hostmetrics.Sample) (time.Duration, bool) {
		return line(&s.Host.Pressure)
	}
}

func hostCPU(get func(*hostmetrics.CPUTimes) float64) func(*hostmetrics.Sample) (float64, bool) {
	return func(s *hostmetrics.Sample) (float64, bool) { return get(&s.Host.CPU), s.Host.HasCPU }
}

func hostMemory(get func(*hostmetrics.Memory) uint64) func(*hostmetrics.Sample) (uint64, bool) {
	return func(s *hostmetrics.Sample) (uint64, bool) { return get(&s.Host.Memory), s.Host.HasMemory }
}

// hostDiskColumn is a column of a counter of the machine's disks
// (/proc/diskstats), as its change since the previous row.
func hostDiskColumn(name, unit, help string, get func(*hostmetrics.DiskIO) uint64) Column {
	return Column{Name: name, Unit: unit, Delta: true, Help: help, Source: "/proc/diskstats",
		cell: deltaUint(func(s *hostmetrics.Sample) (uint64, bool) { return get(&s.Host.Disk), s.Host.HasDisk }, nil)}
}

// hostNetColumn is a column of a byte counter of the machine's network
// interfaces (/proc/net/dev), as its change since the previous row.
func hostNetColumn(name, help string, get func(*hostmetrics.NetIO) uint64) Column {
	return Column{Name: name, Unit: "bytes", Delta: true, Help: help, Source: "/proc/net/dev",
		cell: deltaUint(func(s *hostmetrics.Sample) (uint64, bool) { return get(&s.Host.Net), s.Host.HasNet }, nil)}
}

// jobCPUPct is the job's share of all CPUs over the span the row shows
// (usage.JobCPU: the last of at least 200 ms ended by the row, between the
// readings of the job's CPU time, which a row makes when job_cpu_user_s
// and job_cpu_system_s can say it), in percent.
func jobCPUPct(b []byte, r *row) []byte {
	u, sys, ok := r.cur.Job.CPU()
	from := r.cur.Job.CPUFrom()
	has := ok && r.cur.ReadNow(from)
	r.jobCPU.Take(r.cur.ReadAt(from), u, sys, from, r.cur.Host.NumCPU, has, r.cur.Reason == hostmetrics.ReasonEnd)
	sp, ok := r.jobCPU.Shown()
	if !ok {
		return b
	}
	share, ok := usage.JobShare(&sp)
	if !ok {
		return b
	}
	return appendFixed2(b, 100*share)
}

// hostCPUPct is the share of the machine's CPU time that was busy over the
// span the row shows (usage.HostCPU: the last of at least 200 ms ended by
// the row, each mode's change by the rule of package monotonic, as the
// host_cpu_*_s columns hold them), in percent.
func hostCPUPct(b []byte, r *row) []byte {
	h := &r.cur.Host
	r.hostCPU.Take(r.cur.Time, &h.CPU, h.HasCPU, r.cur.Reason == hostmetrics.ReasonEnd)
	sp, ok := r.hostCPU.Shown()
	if !ok {
		return b
	}
	share, ok := usage.HostShare(&sp)
	if !ok {
		return b
	}
	return appendFixed2(b, 100*share)
}
