#!/usr/bin/env python3
"""Runs a command and prints its wall time and peak resident memory (the children's ru_maxrss),
for machines without /usr/bin/time:  python3 bench/peak_rss.py kprof analyze big.raw.csv -o out"""
import resource
import subprocess
import sys
import time

t0 = time.time()
rc = subprocess.run(sys.argv[1:]).returncode
wall = time.time() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("wall_s {:.2f} user_s {:.2f} sys_s {:.2f} max_rss_MB {:.1f} exit {}".format(
    wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss / 1024.0, rc), file=sys.stderr)
sys.exit(rc)
