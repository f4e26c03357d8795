#!/usr/bin/env python3
"""The run reports of this directory: those a kept `IL_REPRODUCE_KEEP=1
inputlat reproduce --quick` left (2-CPU Debian 12 VM, kernel 6.18.44,
2026-12-07 08:53 UTC, git 4356364, 4 rounds), cut down by this script to
the keys reproduce reads (attribution: its culprits and the canary's), so
that test_reproduce judges them again without root (IL_REPRODUCE_REPORTS).
Their figures are those measured; nothing in them was edited.

    trim.py KEPT_DIR OUT_DIR
"""
import glob
import json
import os
import sys

src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
keep = ['file_version', 'start_time', 'kernel', 'policy', 'scenario', 'events',
        'latency_us', 'samples_us', 'warnings', 'canary', 'hog', 'load', 'exit_code',
        'interrupted', 'work_model']
for p in sorted(glob.glob(src + '/*.json')):
    d = json.load(open(p))
    o = {k: d[k] for k in keep if k in d}
    a = d.get('attribution')
    if a is not None:
        t = {k: a[k] for k in ('available', 'why', 'culprits') if k in a}
        if 'threads' in a:
            t['threads'] = [{'name': x['name'], 'culprits': x.get('culprits', [])}
                            for x in a['threads'] if x.get('name') == 'il:canary']
        o['attribution'] = t
    with open(os.path.join(dst, os.path.basename(p)), 'w') as f:
        json.dump(o, f, separators=(',', ':'))
