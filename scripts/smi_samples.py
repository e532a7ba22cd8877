"""nvidia-smi's board samples, as `--query-gpu=timestamp,<field>,... -lms N` logs them (with or
without units): one (datetime, value, ...) tuple per line holding the timestamp and `values` numbers,
in the order queried. The timestamp is the machine's local time, naive. Headers and lines without
all their fields (nvidia-smi cuts the last one short when stopped) are skipped. Shared by scripts/power-probe.py and db/results/large-cluster-ab/clock_windows.py.
"""
import datetime


def smi_samples(path, values):
    samples = []
    for line in open(path):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 1 + values:
            continue
        try:
            when = datetime.datetime.strptime(fields[0], "%Y/%m/%d %H:%M:%S.%f")
            samples.append((when, *(float(f.split()[0]) for f in fields[1:])))
        except (ValueError, IndexError):
            continue
    return samples
