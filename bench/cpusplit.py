#!/usr/bin/env python3
"""cpusplit.py: where two commands spend their CPU, side by side.

    python3 bench/cpusplit.py [-n N] 'COMMAND 1' 'COMMAND 2' ...

runs the command lines in turn, N rounds (default 200; OUT stands for a
fresh directory on /dev/shm, removed before each run), under one `perf
record -g`, so that the machine's pace changes alike for all of them, and
prints, per run and per command, the CPU its process spent (its own
name: `perf record` samples of other processes, the shell, `rm`, the job,
are left out) split by what it was doing: user code, page faults, and each
system call; then the user code by Go package (the first frame that is
not the runtime's). perf's sampling adds its own cost, so the figures are
larger than `perf stat` or hyperfine give: compare the commands with each
other, not with those. Needs perf (apt-get install linux-perf) and root
or kernel.perf_event_paranoid <= 1.
"""
import collections
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HZ = 20000
RUNTIME = ("runtime.", "internal/", "sync.", "gcWriteBarrier", "indexbyte", "memeqbody", "aeshash", "cmpbody")


def record(cmds, n, work):
    """Runs the commands in turn, n rounds, under one perf record, and
    returns each command's samples (by its process's name)."""
    script = os.path.join(work, "loop.sh")
    data = os.path.join(work, "perf.data")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n")
        f.write(f"for i in $(seq {n}); do\n")
        for i, cmd in enumerate(cmds):
            out = shlex.quote(os.path.join(work, f"out{i}"))
            f.write(f"  rm -rf {out}; {cmd.replace('OUT', out)} >/dev/null 2>&1\n")
        f.write("done\n")
    os.chmod(script, 0o755)
    subprocess.run(["perf", "record", "-q", "-F", str(HZ), "-g", "-o", data, script], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = []
    for cmd in cmds:
        comm = os.path.basename(shlex.split(cmd)[0])[:15]
        text = subprocess.run(["perf", "script", "-i", data, "--comm", comm, "-F", "comm,ip,sym"],
                              capture_output=True, text=True, check=True).stdout
        res.append(split(text))
    return res


def split(text):
    kinds, owners = collections.Counter(), collections.Counter()
    for block in text.split("\n\n"):
        frames = [l.split(None, 1) for l in block.strip().split("\n")[1:] if l.strip()]
        if not frames:
            continue
        kern = [f[1] for f in frames if len(f) > 1 and f[0].startswith("ffffffff")]
        user = [f[1] for f in frames if len(f) > 1 and not f[0].startswith("ffffffff")]
        if not kern:
            kind = "user"
        elif any("asm_exc_page_fault" in k for k in kern):
            kind = "page faults"
        else:
            calls = [k for k in kern if k.startswith(("__x64_sys_", "__do_sys_", "ksys_"))]
            kind = "syscall " + (calls[-1].replace("__x64_sys_", "").replace("__do_sys_", "").replace("ksys_", "")
                                 if calls else "(other kernel)")
        kinds[kind] += 1
        if kind == "user":
            owner = "(runtime)"
            for u in user:
                if u.startswith(RUNTIME) or u in ("[unknown]",) or "abi0" in u:
                    continue
                slash = u.rfind("/")
                dot = u.find(".", slash + 1)
                owner = u[:dot] if dot > 0 else u
                break
            owners[owner] += 1
    return kinds, owners


def main():
    args = sys.argv[1:]
    n = 200
    if len(args) >= 2 and args[0] == "-n":
        n, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    if shutil.which("perf") is None:
        sys.exit("cpusplit.py: perf is missing (apt-get install linux-perf)")
    work = tempfile.mkdtemp(prefix="jobtrace-cpusplit.", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        names = [os.path.basename(shlex.split(c)[0])[:15] for c in args]
        if len(set(names)) != len(names):
            sys.exit("cpusplit.py: the commands' programs must have different names (perf tells their samples apart by them)")
        res = record(args, n, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ms = lambda v: v / HZ * 1000 / n
    names = [os.path.basename(shlex.split(c)[0]) + " " + " ".join(shlex.split(c)[1:2]) for c in args]
    print("| CPU per run, ms | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(args))
    total = [sum(k.values()) for k, _ in res]
    print("| **all** | " + " | ".join(f"**{ms(t):.2f}**" for t in total) + " |")
    every = collections.Counter()
    for k, _ in res:
        every.update(k)
    for kind, _ in every.most_common():
        row = [ms(k[kind]) for k, _ in res]
        if max(row) >= 0.02:
            print(f"| {kind} | " + " | ".join(f"{v:.2f}" for v in row) + " |")
    print()
    print("| user CPU by package, ms | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(args))
    every = collections.Counter()
    for _, o in res:
        every.update(o)
    for owner, _ in every.most_common(25):
        print(f"| {owner} | " + " | ".join(f"{ms(o[owner]):.2f}" for _, o in res) + " |")


if __name__ == "__main__":
    main()
