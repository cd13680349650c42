#!/usr/bin/env python3
"""One full sample with psutil, as jobtrace takes one: the host's figures and
the CPU times, RSS, IO and threads of every process in a tree.

Usage: psutil_sample.py ROOT_PID WORKDIR [MIN_SAMPLES [MIN_SECONDS]]

Samples after one warm-up sample until both minimums are reached, then
prints "name value" lines: processes (in the tree), samples, ns/op (elapsed
time per sample) and cpu-ns/op (this process's CPU time per sample).
bench's BenchmarkSample/N=*/psutil runs it on its trees when
JOBTRACE_BENCH_PSUTIL names the interpreter.
"""

import os
import sys
import time

import psutil


def host(workdir):
    psutil.cpu_times()
    psutil.virtual_memory()
    psutil.swap_memory()
    psutil.disk_io_counters(perdisk=True)
    psutil.net_io_counters(pernic=True)
    psutil.getloadavg()
    psutil.disk_usage(workdir)


def tree(root):
    """children(recursive=True) reads every process's parent once (one scan
    of /proc), the cheapest way psutil offers; oneshot() lets the calls below
    share the reads of stat and status."""
    top = psutil.Process(root)
    procs = [top] + top.children(recursive=True)
    for p in procs:
        with p.oneshot():
            p.cpu_times()
            p.memory_info()
            p.io_counters()
            p.num_threads()
    return len(procs)


def main():
    root = int(sys.argv[1])
    workdir = sys.argv[2]
    min_samples = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    min_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0

    host(workdir)
    procs = tree(root)

    n = 0
    wall0, cpu0 = time.perf_counter_ns(), time.process_time_ns()
    while True:
        host(workdir)
        procs = tree(root)
        n += 1
        wall = time.perf_counter_ns() - wall0
        if n >= min_samples and wall >= min_seconds * 1e9:
            break
    cpu = time.process_time_ns() - cpu0
    print("processes", procs)
    print("samples", n)
    print("ns/op", wall / n)
    print("cpu-ns/op", cpu / n)


if __name__ == "__main__":
    main()
