"""Reading `inputlat run --json` reports and writing a sweep's table.

Shared by scripts/policy-sweep and scripts/inputlat_plots.py. Standard
library only. Latencies are microseconds unless a name says otherwise.

This module computes no interval and no verdict: every comparison comes
from `inputlat compare` (the one statistics engine, common/il_stats.c),
which this module calls and reads. What it does itself is description:
sums, pooled histograms, means and medians over rounds.
"""

import csv
import io
import json
import math
import os
import re
import signal
import stat
import statistics
import subprocess
import tempfile

# The statistics engine's seed: fixed, so the same runs give the same verdicts.
SEED = 1
# The error rate of a sweep's verdicts, held by the family (family_level).
ALPHA = 0.05
LATENCY_STATS = ("p50", "p90", "p99", "mean")


def printable(text):
    """Text from a file or a child (a process's name, a policy's, a stderr
    line) as it may be shown: control characters (a newline that would
    start a Markdown heading or a second message line, an escape sequence,
    C1 controls such as CSI) as '?', as ps does; so are the surrogates that
    stand for a path's undecodable bytes, which a UTF-8 stdout refuses."""
    return "".join("?" if ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or 0xd800 <= ord(ch) <= 0xdfff
                   else ch for ch in str(text))


def child_text(data):
    """A child's output as text: UTF-8, any other byte as U+FFFD. A child
    may print any bytes (inputlat echoes a policy's name from its file),
    and a strict decode raised after the run had finished, losing it."""
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data or ""


def run_child(cmd, **kw):
    """subprocess.run with its output captured and decoded by child_text."""
    r = subprocess.run(cmd, capture_output=True, **kw)
    r.stdout, r.stderr = child_text(r.stdout), child_text(r.stderr)
    return r


def last_line(text, default):
    """The last line of a child's stderr, printable (it reaches a terminal
    and the sweep's files), or default when it printed nothing."""
    return printable((text.strip().splitlines() or [default])[-1])


def how_it_ended(returncode):
    """What a child's return code says when it printed nothing: a signal
    by name (a negative code: SIGXFSZ under a file-size limit), or its exit."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}, nothing on stderr"
        except ValueError:
            return f"killed by signal {-returncode}, nothing on stderr"
    return f"exit {returncode}, nothing on stderr"


class RunError(Exception):
    """A report that cannot be used; str() is one line for the user."""


# The most a reader here takes from one file, as inputlat's own readers: a
# results directory is anyone's, and /dev/zero or a FIFO planted there
# once ran the machine out of memory or hung the sweep.
MAX_READ = 32 << 20


def size_text(n):
    """n bytes as a limit reads: "32 MiB", "4 KiB", "64 bytes" (a 64-byte
    limit once read "larger than 0 MiB")."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} byte{'s' if n != 1 else ''}"


def read_text(path, limit=MAX_READ):
    """The UTF-8 text of the regular file at path, or raises RunError (one line)."""
    try:
        # O_NONBLOCK: a FIFO is refused below, not waited on at open.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise RunError(f"{path}: {e.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RunError(f"{path}: not a regular file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise RunError(f"{path}: {e.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise RunError(f"{path}: larger than {size_text(limit)}")
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise RunError(f"{path}: not UTF-8 text") from None


def write_text(path, text):
    """Writes text to path through a temporary file renamed over it.

    Whatever stood at path (a FIFO nobody reads, a link) is replaced, never
    written through or waited on; a reader never sees half a file. Raises
    OSError naming path.
    """
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".", suffix=".part")
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        # A path's undecodable bytes (a policy file's name in the run's
        # command) come from argv as surrogates: written back as they were.
        # A failed write() or close() (a full disk, RLIMIT_FSIZE) raises an
        # OSError without a file name: given path's, as the rename's is.
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape",
                           newline="") as f:
                f.write(text)
        except OSError as e:
            if e.filename is not None:
                raise
            raise OSError(e.errno, e.strerror, path) from None
        try:
            os.replace(tmp, path)
        except OSError as e:
            raise OSError(e.errno, e.strerror, path) from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class DuplicateKey(Exception):
    """A key twice in one JSON object: no one meaning (cJSON, which
    inputlat compare reads with, takes the first, json the last)."""


def refuse_duplicate_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen.add(key)
    return dict(pairs)


class NotANumber(Exception):
    """NaN, Infinity or a number past a double's range (1e999) in a report:
    not JSON (NaN), or no figure a run writes; cJSON, which inputlat
    compare reads with, refuses the first and reads the last as inf."""


def _refuse_constant(name):
    raise NotANumber(f"{name} is not a JSON number")


def _finite_float(text):
    v = float(text)
    if not math.isfinite(v):
        raise NotANumber(f"{text[:40]} is past a double's range")
    return v


# The values one report may hold (IL_JSON_MAX_VALUES, common/il_file.h):
# 32 MiB of "0," was 16.8 M of them, over 1 GiB parsed here as in C. The
# largest run writes about 250,000.
MAX_VALUES = 2000000
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_SPACE = re.compile(r"[ \t\r\n]+")
_FIRST_ITEM = re.compile(r"[\[{](?=[^\]}])")


def count_values(text):
    """The values in JSON text, counted without parsing, as
    il_json_count_values does: commas outside strings, and one more for
    the text and for each container that is not empty."""
    bare = _SPACE.sub("", _STRING.sub('""', text))
    if not bare:
        return 0
    return 1 + bare.count(",") + len(_FIRST_ITEM.findall(bare))


def load_run(path):
    """Returns the parsed report at path, or raises RunError: one that is
    not JSON, not of a report's shape (REPORT_SHAPE), or that `inputlat
    compare` would refuse (compare_refusal)."""
    text = read_text(path)
    n = count_values(text)
    if n > MAX_VALUES:
        raise RunError(
            f"{path}: {n} JSON values, more than the {MAX_VALUES} a run report may have"
        )
    try:
        run = json.loads(text, object_pairs_hook=refuse_duplicate_keys,
                         parse_constant=_refuse_constant, parse_float=_finite_float)
    except NotANumber as e:
        raise RunError(f"{path}: not an inputlat run report ({printable(e)})") from None
    except DuplicateKey as e:
        key = "".join(c if c.isprintable() else "?" for c in str(e.args[0])[:64])
        raise RunError(
            f'{path}: not JSON we can read (key "{key}" appears twice in one object)'
        ) from None
    except ValueError as e:
        raise RunError(f"{path}: not JSON ({e})") from None
    except RecursionError:
        raise RunError(f"{path}: not an inputlat run report (nested too deep)") from None
    if not isinstance(run, dict) or "latency_us" not in run:
        raise RunError(f"{path}: not an inputlat run report (no latency_us)")
    why = report_shape_error(run) or compare_refusal(run)
    if why:
        raise RunError(f"{path}: not an inputlat run report ({printable(why)})")
    return run


# What inputlat compare takes as a round (add_report in
# harness/cmd_compare.c, il_report_sane in common/il_report_sane.c): a
# report it refuses would be counted here as a round done, shown with p50
# "-", and never run again.
RUN_FILE_VERSION = 1  # IL_RUN_FILE_VERSION
MAX_LATENCY_US = 3.6e9  # IL_REPORT_MAX_LATENCY_US: a run's watchdog ends it long before an hour
MAX_COUNT = 2.0 ** 53
MAX_NUMBER = 1e18  # il_report_sane.c: ns stamps of a machine up for 30 years
NHOPS = 12  # IL_NHOPS


def _is_count(v):
    return _is_number(v) and 0 <= v <= MAX_COUNT and v == math.floor(v)


def _beyond(o, depth=0):
    """The key of a number past MAX_NUMBER outside attribution, or None."""
    items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else []
    for k, v in items:
        if depth == 0 and k == "attribution":
            continue
        if _is_number(v) and abs(v) > MAX_NUMBER:
            return f"{k} = {v:g} is not a number a run writes"
        why = _beyond(v, depth + 1) if isinstance(v, (dict, list)) else None
        if why:
            return why
    return None


def _hops_refusal(run):
    """hops[] as il_report_sane takes it: objects, indices 1..12 once each,
    every *_us a latency or null, the tallies counts."""
    hops = run.get("hops")
    if hops is None:
        return None
    if not isinstance(hops, list):
        return "hops is not a list"
    seen = set()
    for i, h in enumerate(hops):
        if not isinstance(h, dict):
            return f"hops[{i}] is not an object"
        idx = h.get("index")
        if idx is not None and not (_is_count(idx) and 1 <= idx <= NHOPS and idx not in seen):
            return f"hops[{i}].index is not a hop of the chain (1..{NHOPS}, once each)"
        seen.add(idx)
        for k, v in h.items():
            if k.endswith("_us") and len(k) > 3 and v is not None and not (
                    _is_number(v) and 0 <= v <= MAX_LATENCY_US):
                return f"hops[{i}].{k} is not a latency (0 to {MAX_LATENCY_US:.0f} us) or null"
        for k in ("same_cpu", "cross_cpu", "cpu_unknown", "out_of_order"):
            if k in h and not _is_count(h[k]):
                return f"hops[{i}].{k} is not a count of events"
    return None


# The domain of every other figure a run writes: il_report_sane.c's
# domains table, word for word (test_sweep runs both over the same edited
# reports). A value outside it reached the sweep's summary ("the CFS
# canary's longest stall ... rt -50.0 ms"). Only numbers are judged: null
# and "unreadable: ..." stand where a figure could not be had. A path:
# keys split by ".", "*" for every member of an object, "[]" for every
# entry of a list, digits for one entry of a list.
_DOMAIN_WORDS = {
    "duration": "a duration (0 or more)",
    "amount": "an amount (0 or more)",
    "count": "a count (a whole number, 0 or more)",
    "share": "a share (0 to 1)",
    "cpu_share": "a share (0 to 1)",
    "pct": "a percentage (0 to 100)",
    "rt_runtime": "an RT runtime (-1, or a whole number of us)",
    "rt_prio": "an RT priority (0 to 99)",
    "nice": "a nice value (-20 to 19)",
    "uclamp": "a utilization clamp (0 to 1024)",
    "cpu": "a CPU number (-1 or more)",
}


def _in_domain(x, d):
    whole = x == math.floor(x)
    return {
        "duration": x >= 0,
        "amount": x >= 0,
        "count": x >= 0 and whole,
        "share": 0 <= x <= 1,
        "cpu_share": 0 <= x <= 1.01,  # CPU time over wall x CPUs, two clocks
        "pct": 0 <= x <= 100,
        "rt_runtime": x >= -1 and whole,
        "rt_prio": 0 <= x <= 99 and whole,
        "nice": -20 <= x <= 19 and whole,
        "uclamp": 0 <= x <= 1024 and whole,
        "cpu": x >= -1 and whole,
    }[d]


DOMAINS = [
    ("kernel.sched_rt_runtime_us", "rt_runtime"),
    ("kernel.fair_server.runtime_ns", "count"),
    ("kernel.fair_server.period_ns", "count"),
    ("kernel.fair_server_per_cpu.[].cpu", "count"),
    ("kernel.fair_server_per_cpu.[].runtime_ns", "count"),
    ("kernel.fair_server_per_cpu.[].period_ns", "count"),
    ("kernel.ext_server_per_cpu.[].cpu", "count"),
    ("kernel.ext_server_per_cpu.[].runtime_ns", "count"),
    ("kernel.ext_server_per_cpu.[].period_ns", "count"),
    ("kernel.rt_group_sched.root_rt_runtime_us", "rt_runtime"),
    ("kernel.rt_throttling.runtime_us", "count"),
    ("kernel.rt_throttling.period_us", "count"),
    ("system.cpus_allowed_count", "count"),
    ("system.cpu_bandwidth.cpus", "amount"),
    ("system.cpu_bandwidth.quota_us", "count"),
    ("system.cpu_bandwidth.period_us", "count"),
    ("system.steal_pct", "pct"),
    ("scenario.events", "count"),
    ("scenario.interval_ms", "duration"),
    ("scenario.timeout_ms", "duration"),
    ("scenario.duration_ms", "duration"),
    ("scenario.work_us.*", "duration"),
    ("scenario.hog_threads", "count"),
    ("scenario.load_threads", "count"),
    ("duration_s", "duration"),
    ("startup_ms.*", "duration"),
    ("teardown_ms.*", "duration"),
    ("fixed_cost_ms", "duration"),
    ("milestones_ns.*", "count"),
    ("context_switches.events", "count"),
    ("context_switches.seconds", "duration"),
    ("context_switches.chain_per_event.*", "amount"),
    ("context_switches.threads.[].voluntary", "count"),
    ("context_switches.threads.[].involuntary", "count"),
    ("context_switches.threads.[].voluntary_per_event", "amount"),
    ("context_switches.threads.[].handlers_per_event", "amount"),
    ("context_switches.threads.[].design_per_event", "amount"),
    ("exit_code", "count"),
    ("events.mean_spacing_ms", "duration"),
    ("events.warmup.*", "count"),
    ("hops.[].same_cpu_fraction", "share"),
    ("threads.[].pid", "count"),
    ("threads.[].tid", "count"),
    ("threads.[].priority", "rt_prio"),
    ("threads.[].nice", "nice"),
    ("threads.[].slice_ns", "count"),
    ("threads.[].dl_runtime_ns", "count"),
    ("threads.[].dl_deadline_ns", "count"),
    ("threads.[].dl_period_ns", "count"),
    ("threads.[].util_min", "uclamp"),
    ("threads.[].util_max", "uclamp"),
    ("loops_per_us", "amount"),
    ("work_accuracy.tolerance", "amount"),
    ("work_accuracy.min_handlers", "count"),
    ("work_accuracy.cpu_clock_step_ns", "duration"),
    ("work_accuracy.loops_per_us", "amount"),
    ("work_accuracy.test_work_scale", "amount"),
    ("work_accuracy.clock_overhead_ns", "duration"),
    ("work_accuracy.speed_ratio", "amount"),
    ("work_accuracy.worst_ratio", "amount"),
    ("work_accuracy.threads.*.configured_us", "duration"),
    ("work_accuracy.threads.*.measured_p50_us", "duration"),
    ("work_accuracy.threads.*.ratio", "amount"),
    ("work_accuracy.threads.*.handlers", "count"),
    ("hygiene.warmup_events", "count"),
    ("hygiene.stack_prefault_kib", "count"),
    ("hygiene.memlock.*.locked_vm_kib", "count"),
    ("hygiene.rttime.soft_us", "count"),
    ("hygiene.rttime.hard_us", "count"),
    ("hygiene.cpu_dma_latency.value_us", "count"),
    ("trace_marker.processes.*.written", "count"),
    ("trace_marker.processes.*.failed", "count"),
    ("rss_kib.*", "count"),
    ("processes.*.queues.*.capacity", "count"),
    ("processes.*.queues.*.max_depth", "count"),
    ("processes.*.queues.*.dropped", "count"),
    ("processes.*.rss_kib", "count"),
    ("processes.*.memlock.locked_vm_kib", "count"),
    ("histogram.buckets.[].0", "duration"),
    ("histogram.buckets.[].1", "count"),
    ("samples_us.kept", "count"),
    ("samples_us.of", "count"),
    ("event_window.slots", "count"),
    ("event_window.max_in_flight", "count"),
    ("background.pid", "count"),
    ("background.pgid", "count"),
    ("background.wall_ns", "count"),
    ("background.cpu_ns", "count"),
    ("background.cpu_share", "cpu_share"),
    ("background.cpus", "count"),
    ("background.outside_group", "count"),
    ("canary.max_stall_ms", "duration"),
    ("canary.cpu_share", "share"),
    ("canary.wakeups", "count"),
    ("canary.expected_wakeups", "count"),
    ("canary.waited_ms", "duration"),
    ("canary.cpu_ms", "duration"),
    ("canary.wall_ms", "duration"),
    ("canary.tid", "count"),
    ("canary.interval_us", "duration"),
    ("canary.cpu", "count"),
    ("hog.idle_waste_pct", "pct"),
    ("hog.js_heap_max_bytes", "count"),
    ("hog.js_heap_peak_bytes", "count"),
    ("hog.js_errors", "count"),
]
# The worker groups' figures (il_workers_stats_json), under each of these.
WORKER_GROUPS = ["hog", "load", "processes.*.hog", "processes.*.load"]
WORKER_DOMAINS = [
    ("threads", "count"),
    ("cpus", "count"),
    ("cpu_set.[]", "count"),
    ("wall_ns", "count"),
    ("per_thread.[].tid", "count"),
    ("per_thread.[].cpu", "cpu"),
    ("per_thread.[].cpu_ns", "count"),
    ("per_thread.[].iterations", "count"),
    ("per_thread.[].slices", "count"),
    ("cpu_ns", "count"),
    ("cpu_share", "cpu_share"),
]


def _domain_walk(o, path, where, d):
    if not path:
        if _is_number(o) and not _in_domain(o, d):
            return f"{where} = {o:g} is not {_DOMAIN_WORDS[d]}"
        return None
    key, _, rest = path.partition(".")
    if key in ("*", "[]"):
        if key == "*" and isinstance(o, dict):
            items = [(f"{where}.{k}" if where else k, v) for k, v in o.items()]
        elif key == "[]" and isinstance(o, list):
            items = [(f"{where}[{i}]", v) for i, v in enumerate(o)]
        else:
            return None
        for here, v in items:
            why = _domain_walk(v, rest, here, d)
            if why:
                return why
        return None
    if key.isdigit():
        if not isinstance(o, list) or int(key) >= len(o):
            return None
        return _domain_walk(o[int(key)], rest, f"{where}[{key}]", d)
    if not isinstance(o, dict) or key not in o:
        return None
    return _domain_walk(o[key], rest, f"{where}.{key}" if where else key, d)


def _domains_refusal(run):
    """Why a figure of run is outside its domain (il_report_sane's
    domains_sane), or None."""
    for path, d in DOMAINS:
        paths = [path]
        if path.startswith(("canary.", "hog.")):
            paths.append("processes.*." + path)
        for p in paths:
            why = _domain_walk(run, p, "", d)
            if why:
                return why
    for group in WORKER_GROUPS:
        for path, d in WORKER_DOMAINS:
            why = _domain_walk(run, f"{group}.{path}", "", d)
            if why:
                return why
    return None


def _hop_order_refusal(run):
    """A hop's percentiles in order, p50 <= p99 <= max, within 1%
    (il_report_sane's hop_order_sane), or why not."""
    hops = run.get("hops")
    for k, h in enumerate(hops if isinstance(hops, list) else []):
        bad = _out_of_order(h, ("p50_us", "p99_us", "max_us"))
        if bad:
            return f"hops[{k}]: {bad}"
    return None


def _out_of_order(stats, keys):
    """The first of keys (in rising order) whose number in stats is below
    the one before it, beyond the 1% a histogram's rounding allows, said
    as "p50 900 us below its p99 ...", or None. Keys without a number are
    passed over."""
    prev = None
    for key in keys:
        v = stats.get(key) if isinstance(stats, dict) else None
        if not _is_number(v):
            continue
        if prev is not None and v < prev[1] / 1.01:
            return f"{key} {v:g} us below its {prev[0]} {prev[1]:g} us: not one run's figures"
        prev = (key, v)
    return None


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _latency_error(v, where):
    if _is_number(v) and not (0 <= v <= MAX_LATENCY_US):
        return f"{where} = {v:g} is not a latency (0 to {MAX_LATENCY_US:.0f} us)"
    return None


def compare_refusal(run):
    """Why `inputlat compare` would refuse run as a round, or None: the
    file_version it reads, the keys it needs, every latency (latency_us,
    samples_us) finite and 0 to an hour, whole event counts that add up, no
    more samples than completed events, and no `error` (a failed run)."""
    version = run.get("file_version")
    if version != RUN_FILE_VERSION or isinstance(version, bool):
        return (f"file_version {version}: not a version this reads (it reads {RUN_FILE_VERSION})"
                if isinstance(version, int) and not isinstance(version, bool)
                else "no file_version" if version is None else "file_version is not a version number")
    for key in ("events", "latency_us"):
        if not isinstance(run.get(key), dict):
            return f"no {key}"
    if "processing" not in run["latency_us"]:
        return "missing key latency_us.processing"
    for lat, stats in run["latency_us"].items():
        for k, v in (stats or {}).items():
            why = _latency_error(v, f"latency_us.{lat}.{k}")
            if why:
                return why
    samples = run.get("samples_us")
    if isinstance(samples, dict):
        for lat, values in samples.items():
            if lat in ("processing", "presentation") and not (
                    isinstance(values, list) and all(_is_number(v) for v in values)):
                return f"samples_us.{lat} is not a list of latencies"
            items = (enumerate(values) if isinstance(values, list) else
                     values.items() if isinstance(values, dict) else [])
            for k, v in items:
                why = _latency_error(v, f"samples_us.{lat}[{k}]" if isinstance(values, list)
                                     else f"samples_us.{lat}.{k}")
                if why:
                    return why
    counts = [run["events"].get(k) for k in ("sent", "completed", "timed_out")]
    for k, v in zip(("sent", "completed", "timed_out"), counts):
        if not _is_count(v):
            return f"events.{k} is not a count of events"
    for k, v in run["events"].items():
        if _is_number(v) and k != "mean_spacing_ms" and not _is_count(v):
            return f"events.{k} is not a count of events"
    if counts[1] + counts[2] > counts[0]:
        return (f"events.completed + events.timed_out ({counts[1] + counts[2]:.0f}) exceed "
                f"events.sent ({counts[0]:.0f})")
    for lat in ("processing", "presentation"):
        values = samples.get(lat) if isinstance(samples, dict) else None
        if isinstance(values, list) and len(values) > counts[1]:
            return (f"samples_us.{lat} has {len(values)} samples for {counts[1]:.0f} "
                    f"completed events")
    for lat, stats in run["latency_us"].items():
        bad = _out_of_order(stats, ("min", "p50", "p90", "p99", "p999", "max"))
        if bad:
            return f"latency_us.{lat}: {bad}"
        count = stats.get("count") if isinstance(stats, dict) else None
        if _is_number(count) and count > counts[1]:
            return (f"latency_us.{lat}.count {count:g} is more than the {counts[1]:g} events "
                    f"completed")
    why = _hops_refusal(run) or _hop_order_refusal(run)
    if why:
        return why
    cpus = (run.get("kernel") or {}).get("nr_cpus") if isinstance(run.get("kernel"), dict) else None
    if cpus is not None and not (_is_count(cpus) and 1 <= cpus <= 65536):
        return "kernel.nr_cpus is not a count of CPUs"
    why = _beyond(run) or _domains_refusal(run)
    if why:
        return why
    error = run.get("error")
    if isinstance(error, str):
        return f"that run failed ({error[:200]}): its figures are not a measurement"
    if error is not None:
        return "its error is not a message"
    return None


# The shape of the members of a report the readers here use, as inputlat
# writes them: a type, NUMBER (int or float, not bool), a dict of members
# ("*": every member), [item] for a list of items, or (a, b) for a pair.
# Any member may be null (not measured); members not named are not checked.
# A damaged or hand-edited report is refused when read, naming the member,
# not met as a traceback later.
NUMBER = "number"
REPORT_SHAPE = {
    "file_version": int, "cmdline": str, "start_time": str, "tool_version": str,
    "policy": str, "work_model": str,
    "kernel": {"fair_server": {"runtime_ns": NUMBER, "period_ns": NUMBER}},
    "system": dict, "scenario": {"events": NUMBER, "interval_ms": NUMBER},
    "canary": dict, "hog": dict, "load": dict, "warnings": [str], "threads": [dict],
    "events": {"sent": NUMBER, "completed": NUMBER, "timed_out": NUMBER},
    "latency_us": {"*": {"*": NUMBER}},
    "hops": [{"index": int, "name": str, "mean_us": NUMBER}],
    "histogram": {"buckets": [(NUMBER, NUMBER)]},
    "attribution": {"processing": {"*": {"mean_us": NUMBER}},
                    "culprits": [{"thread": str, "class": str, "priority": NUMBER,
                                  "total_ms": NUMBER}]},
}


def _shape_error(v, shape, where):
    if v is None:
        return None
    if shape == NUMBER:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
        return None if ok else f"{where} is {type(v).__name__}, not a number"
    if isinstance(shape, type):
        ok = isinstance(v, shape) and not (shape is int and isinstance(v, bool))
        return None if ok else f"{where} is {type(v).__name__}, not {shape.__name__}"
    if isinstance(shape, tuple):
        if not isinstance(v, list) or len(v) != len(shape):
            return f"{where} is not a list of {len(shape)}"
        return next((e for e in (_shape_error(x, s, f"{where}[{k}]")
                                 for k, (x, s) in enumerate(zip(v, shape))) if e), None)
    if isinstance(shape, list):
        if not isinstance(v, list):
            return f"{where} is {type(v).__name__}, not list"
        return next((e for e in (_shape_error(x, shape[0], f"{where}[{k}]")
                                 for k, x in enumerate(v)) if e), None)
    if not isinstance(v, dict):
        return f"{where} is {type(v).__name__}, not dict"
    for key, sub in shape.items():
        items = v.items() if key == "*" else [(key, v.get(key))]
        for k, x in items:
            e = _shape_error(x, sub, f"{where}.{k}" if where else k)
            if e:
                return e
    return None


def report_shape_error(run):
    """Why run does not have a report's shape (REPORT_SHAPE), or None."""
    return _shape_error(run, REPORT_SHAPE, "")


def get(obj, path, default=None):
    """obj["a"]["b"] for path "a.b"; default when a key is absent or null."""
    for key in path.split("."):
        if not isinstance(obj, dict) or obj.get(key) is None:
            return default
        obj = obj[key]
    return obj


def is_fair_server_warning(w):
    """A run's warning that its policy's fair-server settings were not applied
    ("policy P: fair server R us per T us not applied: why; ...")."""
    return isinstance(w, str) and ": fair server " in w and " not applied: " in w


def work_warnings(run):
    """The report's warnings about handlers that did not do their configured work."""
    return [w for w in run.get("warnings") or [] if isinstance(w, str) and w.startswith("work:")]


def merge_buckets(bucket_lists):
    """Sums [[upper_bound_us, count], ...] lists into one sorted list."""
    total = {}
    for buckets in bucket_lists:
        for upper, count in buckets or []:
            total[float(upper)] = total.get(float(upper), 0) + int(count)
    return [[ub, n] for ub, n in sorted(total.items()) if n > 0]


def bucket_quantile(buckets, q, lost=0):
    """Upper bound of the bucket holding quantile q (0..1); None if empty.

    lost: events that never completed (timed out, dropped, in flight),
    slower than every one in the buckets, as inputlat compare ranks them:
    the quantile is None when its rank falls among them (beyond the
    timeout), never the completed events' own."""
    completed = sum(n for _, n in buckets)
    total = completed + lost
    if completed == 0:
        return None
    rank = max(1, math.ceil(q * total))
    if rank > completed:
        return None
    seen = 0
    for upper, n in buckets:
        seen += n
        if seen >= rank:
            return upper
    return buckets[-1][0]


def cdf_points(buckets, lost=0):
    """[(upper_bound_us, fraction of events at or below it), ...]; the lost
    events (bucket_quantile) are in the fractions' total and at or below
    no latency, so the last fraction is the share that completed."""
    total = sum(n for _, n in buckets) + lost
    seen, points = 0, []
    for upper, n in buckets:
        seen += n
        points.append((upper, seen / total))
    return points


def log_rebin(buckets, per_decade=20, lost=0):
    """Regroups buckets into equal log-width bins: [(lo, hi, fraction)],
    each a fraction of every event, the lost ones (bucket_quantile) in
    no bin.

    The harness's log-linear buckets change width inside each power of
    two, which draws a sawtooth on a log axis; equal log widths do not.
    """
    if sum(n for _, n in buckets) == 0:
        return []
    total = sum(n for _, n in buckets) + lost
    if total == 0:
        return []
    bins = {}
    for upper, n in buckets:
        i = math.floor(math.log10(max(upper, 1e-3)) * per_decade)
        bins[i] = bins.get(i, 0) + n
    lo_i, hi_i = min(bins), max(bins)
    return [(10 ** (i / per_decade), 10 ** ((i + 1) / per_decade), bins.get(i, 0) / total)
            for i in range(lo_i - 1, hi_i + 2)]


def _values(runs, path):
    return [v for v in (get(r, path) for r in runs) if isinstance(v, (int, float))]


def _median(values):
    return statistics.median(values) if values else None


def _mean(values):
    return statistics.fmean(values) if values else None


def _count_sum(runs, path):
    """The sum of a count over runs, or None when a run's report lacks it
    (or has it null: unreadable there)."""
    vals = [get(r, path) for r in runs]
    return sum(vals) if all(_is_number(v) for v in vals) else None


def cell_stats(runs):
    """What the rounds of one cell say, described (no inference here).

    Counts are sums over rounds. The processing mean is pooled over every
    measured event (so the per-hop means, pooled the same way, add up to
    it); p99.9 and max are read from the histogram of all rounds merged.
    p50/p90/p99 and the verdicts come later from `inputlat compare`.
    Canary stall, hog share and idle waste keep each round's value.

    Events a round lost (sent, never completed: timed out, dropped, in
    flight) were slower than every event it completed, as `inputlat
    compare` ranks them: the pooled p99.9 is None where its rank falls
    among them, and the mean and max are None when any was lost (a mean
    or maximum over the completed ones alone is the flattering figure).
    """
    merged = merge_buckets(get(r, "histogram.buckets", []) for r in runs)
    counts = [get(r, "latency_us.processing.count", 0) or 0 for r in runs]
    means = [get(r, "latency_us.processing.mean") for r in runs]
    weighted = [(m, n) for m, n in zip(means, counts) if m is not None and n]
    top = max(_values(runs, "latency_us.processing.max"), default=None)
    lost = sum(max(0, (get(r, "events.sent", 0) or 0) - (get(r, "events.completed", 0) or 0))
               for r in runs)
    p999 = bucket_quantile(merged, 0.999, lost)
    # The pooled p99.9 needs min_events of the pool (completed and lost).
    pooled = sum(n for _, n in merged) + lost
    few = ({"proc_p999_us": min_events(QUANTILES["p999"])}
           if runs and pooled < min_events(QUANTILES["p999"]) else {})
    if few:
        p999 = None
    return {
        "rounds": len(runs),
        "events": sum(get(r, "events.sent", 0) for r in runs),
        "completed": sum(get(r, "events.completed", 0) for r in runs),
        "timed_out": sum(get(r, "events.timed_out", 0) for r in runs),
        "events_per_round": min(counts) if counts else 0,
        # The fewest events a round measured, per latency, as inputlat
        # compare counts them for its min_events rule.
        "events_per_round_by": {lat: min((get(r, f"latency_us.{lat}.count", 0) or 0 for r in runs),
                                         default=None)
                                for lat in ("processing", "presentation")},
        "too_few": few,
        "lost": lost,
        # What the lost were, as the reports count them: timed out (of
        # them, dropped by a full queue in the chain) and in flight when
        # the run ended; None where a round's report does not say.
        "in_flight": _count_sum(runs, "events.in_flight"),
        "dropped": _count_sum(runs, "events.dropped_in_chain"),
        "proc_mean_us": (sum(m * n for m, n in weighted) / sum(n for _, n in weighted)
                         if weighted and not lost else None),
        # A bucket's upper bound can lie past the exact maximum.
        "proc_p999_us": p999 if p999 is None or top is None else min(p999, top),
        "proc_max_us": top if not lost else None,
        "canary_stall_ms": _values(runs, "canary.max_stall_ms"),
        # The canary's period as each round's report says it (distinct
        # values), and how many rounds with a canary do not say.
        "canary_interval_us": sorted(set(_values(runs, "canary.interval_us"))),
        "canary_interval_unsaid": sum(1 for r in runs if isinstance(r.get("canary"), dict)
                                      and not _is_number(get(r, "canary.interval_us"))),
        "hog_share_pct": [100 * v for v in _values(runs, "hog.cpu_share")],
        "idle_waste_pct": _values(runs, "hog.idle_waste_pct"),
        "merged": merged,
        # What the rounds ran with, as their reports say (the summary names
        # them): distinct values, in order.
        "timeout_ms": sorted(set(_values(runs, "scenario.timeout_ms"))),
        "warmup": sorted(set(_values(runs, "events.warmup.sent"))),
        "hogs": sorted({(h, m) for h, m in ((get(r, "scenario.hog_threads"),
                                            get(r, "scenario.hog_mode")) for r in runs)
                        if _is_number(h) and h > 0 and isinstance(m, str)}),
        "hop_mean_us": hop_means(runs),
        # Hops of processing latency some rounds' reports lack: not drawn
        # (no 0 bar), and said in the summary.
        "hop_gaps": hop_gaps(runs),
        "hop_names": {h.get("index"): h.get("name") for r in runs for h in r.get("hops") or []
                      if isinstance(h, dict) and isinstance(h.get("name"), str)},
        "runqueue_share_pct": runqueue_shares(runs),
        "culprits": culprit_totals(runs),
        # The rounds culprits' totals are summed over: those whose report
        # had attribution with its list of culprits (maybe empty).
        "culprit_rounds": sum(1 for r in runs if get(r, "attribution.available") is True
                              and isinstance(get(r, "attribution.culprits"), list)),
        "attribution_why": attribution_why(runs),
        "work_off": [],  # rounds kept although their work was off (filled by the sweep)
    }


def runqueue_shares(runs):
    """Per round with attribution: the share of processing latency spent in
    run queues (the mean runqueue component over the processing mean, in %)."""
    out = []
    for r in runs:
        rq = get(r, "attribution.processing.runqueue.mean_us")
        total = sum(v.get("mean_us") or 0 for v in (get(r, "attribution.processing", {}) or {}).values()
                    if isinstance(v, dict))
        if isinstance(rq, (int, float)) and total > 0:
            out.append(100.0 * rq / total)
    return out


# A culprit's class in words, as `inputlat explain` says it
# (il_explain_culprit_words in attrib/il_explain.c); {p} is its priority.
_CLASS_WORDS = {"fifo": "SCHED_FIFO {p}", "rr": "SCHED_RR {p}", "rt": "RT {p}",
                "deadline": "SCHED_DEADLINE", "fair": "CFS nice {p}",
                "batch": "SCHED_BATCH nice {p}", "idle": "SCHED_IDLE"}


def throttle_words(run):
    """What "throttled" was in the run (throttle_words in
    attrib/il_explain.c): the mechanisms the run had in force, none it
    had off; a report that does not say keeps a mechanism in the list."""
    run = run if isinstance(run, dict) else {}
    threads = run.get("threads")
    pols = [t.get("policy") for t in threads if isinstance(t, dict)] \
        if isinstance(threads, list) else None
    fifo = pols is None or any(p in ("fifo", "rr") for p in pols)
    dl = pols is None or "deadline" in pols
    rt, fs, fs_rt = get(run, "kernel.sched_rt_runtime_us"), \
        get(run, "kernel.fair_server.present"), get(run, "kernel.fair_server.runtime_ns")
    in_force = get(run, "kernel.rt_throttling.in_force")
    num = (int, float)
    why = []
    # A report that says whether RT throttling was in force is taken at its
    # word; an older one by sched_rt_runtime_us.
    if isinstance(in_force, bool):
        rt_on = in_force
    else:
        rt_on = not isinstance(rt, num) or isinstance(rt, bool) or rt >= 0
    if fifo and rt_on:
        why.append("RT throttling")
    if fs is not False and (not isinstance(fs_rt, num) or isinstance(fs_rt, bool) or fs_rt > 0):
        why.append("the fair server")
    if dl:
        why.append("a deadline thread's own throttling (its runtime used up)")
    if not why:
        return ("throttling (neither RT throttling nor a fair server was in force: "
                "the CPU idled or ran CFS)")
    said = why[0] if len(why) == 1 else ", ".join(why[:-1]) + " or " + why[-1]
    return f"throttling ({said}: the CPU idled or ran CFS)"


def culprit_label(c, run=None):
    """A culprit of a report's attribution in words, as `inputlat explain`
    names it. The two without a class are not threads: "idle" is the time
    an idle CPU took to wake up for the pipeline, "throttled" the time
    throttling (what the run had in force, throttle_words) kept it from
    running; a thread that happens to be called so has its class beside
    its name."""
    t, cls, p = c.get("thread"), c.get("class"), c.get("priority")
    if not isinstance(cls, str):
        if t == "idle":
            return "an idle CPU (idle exit)"
        if t == "throttled":
            return throttle_words(run)
        return str(t)
    p = int(p) if isinstance(p, (int, float)) and math.isfinite(p) else 0
    # A thread of no process of the run (process null) is said to be so:
    # another program's "inputlat" is not the run's own.
    if "process" in c and c["process"] is None:
        t = f"{t} of another program"
    return f"{t} ({_CLASS_WORDS.get(cls, 'SCHED_OTHER nice {p}').format(p=p)})"


def culprit_totals(runs):
    """{culprit in words (culprit_label): milliseconds it held a CPU the
    pipeline waited for}, summed over rounds."""
    tot = {}
    for r in runs:
        for c in get(r, "attribution.culprits", []) or []:
            t, ms = c.get("thread"), c.get("total_ms")
            if t and isinstance(ms, (int, float)):
                label = culprit_label(c, r)
                tot[label] = tot.get(label, 0.0) + ms
    return tot


def attribution_why(runs):
    """Why no round of a cell had attribution (None when one had)."""
    whys = []
    for r in runs:
        a = r.get("attribution")
        if isinstance(a, dict) and a.get("available"):
            return None
        whys.append(a.get("why") if isinstance(a, dict) else "the report has no attribution")
    return whys[0] if whys else "no round"


def hop_means(runs):
    """{hop index: (name, mean_us over every event of every round)} for hops 1..12.

    Pooled like the processing mean (each round weighted by its events),
    so hops 1..11 add up to it exactly. A hop that a round with events
    lacks (not in its hops[], or its mean_us null) is left out: a mean over
    the other rounds would not add up with the rest, and a 0 would claim a
    hop that took no time. hop_gaps says which.
    """
    sums, counts, names = {}, {}, {}
    measured = [r for r in runs if get(r, "latency_us.processing.count", 0)]
    for r in measured:
        n = get(r, "latency_us.processing.count", 0)
        for h in r.get("hops") or []:
            k, m = h.get("index"), h.get("mean_us")
            if k is None or m is None:
                continue
            sums[k] = sums.get(k, 0) + m * n
            counts[k] = counts.get(k, 0) + n
            names.setdefault(k, h.get("name") or f"hop {k}")
    gaps = hop_gaps(runs)
    return {k: (names[k], sums[k] / counts[k]) for k in sorted(sums) if k not in gaps}


def hop_gaps(runs):
    """{hop index: rounds lacking it} over the hops of processing latency
    (1..NHOPS-1), among the rounds that completed events: a hop not in a
    round's hops[], or there with its mean_us null."""
    measured = [r for r in runs if get(r, "latency_us.processing.count", 0)]
    gaps = {}
    for k in range(1, NHOPS):
        lacking = sum(1 for r in measured
                      if not any(isinstance(h, dict) and h.get("index") == k and
                                 h.get("mean_us") is not None for h in r.get("hops") or []))
        if lacking:
            gaps[k] = lacking
    return gaps


# What two run reports must share to be like with like: one machine and
# one scenario (common/il_comparable.c; keep the lists alike). A field a
# report does not carry is not judged.
COMPARABLE_MACHINE = ("kernel.release", "kernel.nr_cpus", "system.cpu_model")
COMPARABLE_SCENARIO = ("scenario.events", "scenario.interval_ms", "scenario.load_threads",
                       "scenario.hog_threads", "scenario.hog_mode")
_ABSENT = object()


def comparable_differences(a, b, fields):
    """["kernel.nr_cpus 2 vs 64", ...]: the fields in which run reports a
    and b differ, a's value first (il_comparable_diff)."""
    out = []
    for key in fields:
        x, y = get(a, key, _ABSENT), get(b, key, _ABSENT)
        if x is _ABSENT or y is _ABSENT or x == y:
            continue
        out.append(f"{key} {printable(str(x))} vs {printable(str(y))}")
    return out


def place_differences(run, policy=None, hog_mode=None, **counts):
    """["policy cfs, its place's rt", ...]: where run is not what its place
    (a sweep's cell) says: its policy, scenario counts, given as
    load_threads=4, hog_threads=2, and its hogs' kind as a report writes
    scenario.hog_mode ("none" without hogs; il_comparable_place_diff)."""
    out = []
    if policy is not None and run.get("policy") != policy:
        out.append(f"policy {printable(str(run.get('policy')))}, its place's {printable(policy)}")
    for key, want in counts.items():
        had = get(run, f"scenario.{key}")
        if not _is_number(had) or had != want:
            out.append(f"scenario.{key} {had}, its place's {want}")
    if hog_mode is not None:
        had = get(run, "scenario.hog_mode")
        if had != hog_mode:
            said = printable(had) if isinstance(had, str) else "missing" if had is None else had
            out.append(f"scenario.hog_mode {said}, its place's {hog_mode}")
    return out


# il_stats_min_events (common/il_stats.c, IL_STATS_MIN_TAIL and
# IL_STATS_MIN_MEAN_EVENTS): a quantile q is read only from events of which
# at least 5 lie beyond it. inputlat compare's rows carry the figure as
# min_events, and its verdicts refuse rounds with fewer events; test_sweep
# checks that the two agree.
MIN_TAIL = 5
MIN_MEAN_EVENTS = 20


def min_events(q):
    """The events a quantile q (0..1; None: the mean) needs, as the C engine says."""
    if q is None:
        return MIN_MEAN_EVENTS
    if q >= 1:
        return math.inf
    return math.ceil(MIN_TAIL / (1.0 - q) - 1e-9)


# The quantile of each percentile the table shows.
QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999}


def refuse_too_few(c):
    """Blanks the table's figures of cell c that its events cannot estimate,
    by min_events: each round's p50/p90/p99 (and their ratios to the
    reference) where the cell's shortest round has fewer events than the
    percentile needs, the pooled p99.9 where all its rounds together have
    fewer. The keys go in c["too_few"] ({key: events needed}); the table
    prints them "n/a", its legend says why."""
    few = c.setdefault("too_few", {})
    for key, lat in (("proc", "processing"), ("pres", "presentation")):
        fewest = (c.get("events_per_round_by") or {}).get(lat)
        for stat in CENTRES:
            need = min_events(QUANTILES[stat])
            if c.get("rounds") and fewest is not None and fewest < need:
                few[f"{key}_{stat}_us"] = need
                c[f"{key}_{stat}_us"] = None
                if key == "proc":
                    for k in ("ratio", "lo", "hi"):
                        if f"{stat}_{k}" in c:
                            few[f"{stat}_{k}"] = need
                            c[f"{stat}_{k}"] = None
    return c


# The statistics whose centres over rounds (inputlat compare's, or
# lone_centres') the table shows: the percentiles. Its mean is cell_stats',
# over every event, which the hops chart's bars add up to; compare's mean
# centre is the geometric mean of the rounds' means, another figure.
CENTRES = ("p50", "p90", "p99")


def lone_centres(round_files):
    """The centres `inputlat compare` gives a cell, for a cell with none to
    be compared with (compare refuses one against itself): per latency and
    percentile the geometric mean over rounds of each round's figure, as
    {"proc_p50_us": ..., "pres_p99_us": ...} (not the mean: the table's is
    over every event, cell_stats). A round that lost events
    (timed out, dropped) would need compare's ranking of them: the figure
    is then None, never the flattering one of the rounds that did well."""
    out = {}
    runs = [load_run(f) for f in round_files]
    for lat, key in (("processing", "proc"), ("presentation", "pres")):
        for stat in CENTRES:
            vals = [get(r, f"latency_us.{lat}.{stat}") for r in runs]
            lost = any((get(r, "events.sent", 0) or 0) > (get(r, "events.completed", 0) or 0)
                       for r in runs)
            ok = runs and not lost and all(_is_number(v) and v > 0 for v in vals)
            out[f"{key}_{stat}_us"] = (math.exp(sum(math.log(v) for v in vals) / len(vals))
                                       if ok else None)
    return out


def _group_args(groups):
    """compare's group arguments for groups given as lists of round files,
    and the directory to run it in: each list becomes a comma-separated
    list of names relative to the files' common directory (a path of the
    sweep's --out may hold a comma; its cells' names cannot). A group given
    as a string (a directory, or one report) is passed as it is."""
    files = [f for g in groups if not isinstance(g, str) for f in g]
    if not files:
        return list(groups), None
    root = os.path.commonpath([os.path.abspath(os.path.dirname(f)) for f in files])
    args = []
    for g in groups:
        if isinstance(g, str):
            args.append(os.path.abspath(g))
            continue
        rel = [os.path.relpath(os.path.abspath(f), root) for f in g]
        if not rel:
            raise RunError("inputlat compare: a group without rounds")
        if any("," in r for r in rel):
            raise RunError(f"inputlat compare: a round's name holds a comma: {rel}")
        args.append(",".join(rel))
    return args, root


def compare(inputlat, groups, metrics=None, seed=SEED, alpha=ALPHA):
    """Runs `inputlat compare --unit round --alpha A --json -` over groups.

    A group is a list of round files (a cell's rounds: exactly those, not
    whatever else its directory holds, such as the rounds beyond --rounds
    of an earlier sweep), or a directory. The first group is the
    reference. metrics: ["diff:hog.idle_waste_pct", ...] instead of the
    latencies. Returns the parsed JSON, or raises RunError.
    """
    args, cwd = _group_args(groups)
    if cwd and os.sep in inputlat:
        inputlat = os.path.abspath(inputlat)
    cmd = [inputlat, "compare", "--unit", "round", "--seed", str(seed), "--alpha", f"{alpha:.9g}",
           "--json", "-"]
    for m in metrics or []:
        cmd += ["--metric", m]
    r = run_child(cmd + args, timeout=300, cwd=cwd)
    if r.returncode != 0:
        raise RunError(f"inputlat compare: {last_line(r.stderr, f'exit {r.returncode}')}")
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise RunError(f"inputlat compare: not JSON ({e})") from None


def family_level(inputlat, p_values, alpha=ALPHA):
    """The level at which to judge each comparison of a family (a sweep's
    verdicts) so that together they hold a false discovery rate of alpha:
    `inputlat stats fdr` (Benjamini-Hochberg). p_values: the comparisons'
    p-values at alpha (None where there was not enough data: no verdict,
    so not in the family). Returns (level, rejected, m); (alpha, 0, 0) for
    an empty family. Raises RunError."""
    ps = [p for p in p_values if isinstance(p, (int, float)) and not math.isnan(p)]
    if not ps:
        return alpha, 0, 0
    r = run_child([inputlat, "stats", "fdr", "--alpha", f"{alpha:.9g}", "--json", "-"]
                  + [f"{p:.17g}" for p in ps], timeout=60)
    if r.returncode != 0:
        raise RunError(f"inputlat stats fdr: {last_line(r.stderr, f'exit {r.returncode}')}")
    try:
        res = json.loads(r.stdout)
        return float(res["level"]), int(res["rejected"]), int(res["m"])
    except (ValueError, KeyError, TypeError) as e:
        raise RunError(f"inputlat stats fdr: unexpected output ({e})") from None


def confidence(alpha):
    """"95%" for 0.05, "98.75%" for 0.0125, "99.58%" for 0.05 / 12: an interval's confidence."""
    return f"{100 * (1 - alpha):.2f}".rstrip("0").rstrip(".") + "%"


def comparisons(result, group, latency="processing"):
    """{stat: comparison} of one group against the reference in a compare result."""
    return {c["stat"]: c for c in result.get("comparisons", [])
            if c.get("group") == group and c.get("latency") in (latency, None)}


def verdict_text(c):
    """"lower", "no clear difference", "not enough data: ..." from one comparison."""
    if c is None:
        return "-"
    if c.get("verdict") == "not enough data":
        return c.get("why") or "not enough data"
    return c.get("verdict", "-")


def change_text(c, against, alpha=ALPHA):
    """"38% lower than cfs (95% interval 30-45%)" / "1.02x cfs (95% interval
    0.97-1.07: no clear difference)", the interval at 1 - alpha."""
    r, lo, hi = c.get("ratio"), c.get("lo"), c.get("hi")
    if r is None:
        return f"no ratio to {against}"
    v, conf = c.get("verdict"), confidence(alpha)
    if v in ("lower", "higher") and lo is not None:
        pct = lambda x: abs(1 - x) * 100  # noqa: E731
        a, b = sorted((pct(lo), pct(hi)))
        return f"{pct(r):.0f}% {v} than {against} ({conf} interval {a:.0f}-{b:.0f}%)"
    if lo is not None:
        return f"{r:.2f}x {against} ({conf} interval {lo:.2f}-{hi:.2f}: no clear difference)"
    why = c.get("why") or "not enough data"
    return f"{r:.2f}x {against}, no verdict ({why.replace('not enough data: ', '')})"


# Summary table: (csv column, markdown header, stats key, format).
COLUMNS = [
    ("policy", "policy", "policy", "{}"),
    ("scenario", "scenario", "scenario", "{}"),
    ("rounds", "rounds", "rounds", "{}"),
    ("events", "events", "events", "{}"),
    ("completed", "completed", "completed", "{}"),
    ("timed_out", "timed out", "timed_out", "{}"),
    ("proc_p50_us", "proc p50 µs", "proc_p50_us", "{:.0f}"),
    ("proc_p90_us", "p90", "proc_p90_us", "{:.0f}"),
    ("proc_p99_us", "p99", "proc_p99_us", "{:.0f}"),
    ("proc_mean_us", "mean", "proc_mean_us", "{:.0f}"),
    ("proc_p999_us", "p99.9 (pooled)", "proc_p999_us", "{:.0f}"),
    ("proc_max_us", "max", "proc_max_us", "{:.0f}"),
    ("pres_p50_us", "pres p50 µs", "pres_p50_us", "{:.0f}"),
    ("pres_p99_us", "pres p99", "pres_p99_us", "{:.0f}"),
    ("canary_max_stall_ms", "canary stall ms", "canary_max_stall_ms", "{:.1f}"),
    ("hog_share_pct", "hog share %", "hog_share_mean_pct", "{:.1f}"),
    ("idle_waste_pct", "idle waste %", "idle_waste_mean_pct", "{:.2f}"),
    ("work_off_rounds", "work off", "work_off_rounds", "{}"),
    ("p50_ratio", None, "p50_ratio", "{:.3f}"),
    ("p50_ci_lo", None, "p50_lo", "{:.3f}"),
    ("p50_ci_hi", None, "p50_hi", "{:.3f}"),
    ("p50_verdict", None, "p50_verdict", "{}"),
    ("p99_ratio", None, "p99_ratio", "{:.3f}"),
    ("p99_ci_lo", None, "p99_lo", "{:.3f}"),
    ("p99_ci_hi", None, "p99_hi", "{:.3f}"),
    ("p99_verdict", None, "p99_verdict", "{}"),
    ("verdict", "vs cfs", "verdict", "{}"),
]

COLUMN_DOC = f"""\
Columns of summary.csv (one row per policy × scenario cell; "-" = not measured;
"n/a" = a percentile its events cannot estimate, by the rule `inputlat
compare`'s verdicts use (min_events): a percentile q needs
{MIN_TAIL}/(1-q) events, so each round's p50 {min_events(0.5)}, p90
{min_events(0.9)}, p99 {min_events(0.99)} (a cell's shortest round decides,
and the p50/p99 ratio of such a percentile is "n/a" too), and the pooled
p99.9 {min_events(0.999)} over all the cell's rounds):
policy, scenario; rounds (rounds with a usable report); events, completed,
timed_out (measured mouse-downs, summed over rounds; warm-up ones are not in
them); proc_p50_us, proc_p90_us, proc_p99_us (processing latency: the
geometric mean over rounds of each round's percentile, which is what the
verdicts compare, µs); proc_mean_us (mean over every event of every round:
the per-hop means of the hops chart add up to it); proc_p999_us (all rounds
pooled, from the merged histogram); proc_max_us (largest round maximum);
the last three "-" where the rounds lost events (timed out, dropped or in
flight: slower than any completed one), or for p99.9 where they reach its
rank;
pres_p50_us, pres_p99_us (presentation latency, as the processing
percentiles); canary_max_stall_ms (median over rounds of each round's longest
canary stall); hog_share_pct, idle_waste_pct (means over rounds, %);
work_off_rounds (rounds kept although a handler's measured work was more than
10% off its configured work, after two re-runs); p50_ratio, p99_ratio (this
cell over the cfs cell of the same scenario) with p50_ci_lo/hi, p99_ci_lo/hi
(interval of a permutation test over rounds, from `inputlat
compare`, at the level that holds all the sweep's verdicts together to a 5%
false discovery rate: summary.txt names it) and p50_verdict, p99_verdict ("lower", "higher", "no clear
difference", or "not enough data: what it needs"); verdict (both in one
line; "reference" for cfs itself)."""


def fmt(value, spec="{}"):
    """A table cell: "-" for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return spec.format(value)


def ratio_text(st, q):
    """"0.71 (0.65–0.78)" for the markdown table."""
    if st.get("verdict") == "reference":
        return "reference"
    if f"{q}_ratio" in (st.get("too_few") or {}):
        return "n/a"
    if st.get(f"{q}_ratio") is None:
        return "-"
    if st.get(f"{q}_lo") is None:
        return f"{st[q + '_ratio']:.2f} (no interval)"
    return f"{st[q + '_ratio']:.2f} ({st[q + '_lo']:.2f}–{st[q + '_hi']:.2f})"


def cell_text(row, key, spec):
    """A table cell of row: "n/a" where its events cannot estimate the
    figure (refuse_too_few), else fmt."""
    if key in (row.get("too_few") or {}):
        return "n/a"
    return fmt(row.get(key), spec)


def write_summary_csv(path, cells):
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow([c[0] for c in COLUMNS])
    for (policy, scenario), st in cells.items():
        row = dict(st, policy=policy, scenario=scenario)
        w.writerow([cell_text(row, key, spec) for _, _, key, spec in COLUMNS])
    write_text(path, f.getvalue())


def write_summary_md(path, cells, header_lines, notes, summary_lines, alpha=ALPHA):
    heads = [c[1] for c in COLUMNS if c[1]]
    conf = confidence(alpha)
    heads[-1:-1] = [f"p50 / cfs ({conf} CI)", f"p99 / cfs ({conf} CI)"]
    lines = ["# inputlat policy sweep", "", "## What it found", ""]
    lines += summary_lines[:1] + [""] + [f"- {s}" for s in summary_lines[1:]]
    lines += ["", "## The runs", ""]
    lines += [f"- {h}" for h in header_lines] + [""]
    lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for (policy, scenario), st in cells.items():
        row = dict(st, policy=policy, scenario=scenario)
        vals = [cell_text(row, key, spec) for _, head, key, spec in COLUMNS if head]
        vals[-1:-1] = [ratio_text(st, "p50"), ratio_text(st, "p99")]
        lines.append("| " + " | ".join(vals) + " |")
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    lines += ["", "## Columns", "", COLUMN_DOC, ""]
    write_text(path, "\n".join(lines))
