"""Reading `inputlat run --json` reports and the statistics of a sweep.

Shared by scripts/policy-sweep and scripts/inputlat_plots.py. Standard
library only. Latencies are microseconds unless a name says otherwise.
"""

import csv
import json
import math
import random
import statistics

BOOTSTRAP_RESAMPLES = 2000
# Fixed, so that the same runs always give the same intervals.
BOOTSTRAP_SEED = 1


class RunError(Exception):
    """A report that cannot be used; str() is one line for the user."""


def load_run(path):
    """Returns the parsed report at path, or raises RunError."""
    try:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
    except OSError as e:
        raise RunError(f"{path}: {e.strerror}") from None
    except ValueError as e:
        raise RunError(f"{path}: not JSON ({e})") from None
    if not isinstance(run, dict) or "latency_us" not in run:
        raise RunError(f"{path}: not an inputlat run report (no latency_us)")
    return run


def get(obj, path, default=None):
    """obj["a"]["b"] for path "a.b"; default when a key is absent or null."""
    for key in path.split("."):
        if not isinstance(obj, dict) or obj.get(key) is None:
            return default
        obj = obj[key]
    return obj


def merge_buckets(bucket_lists):
    """Sums [[upper_bound_us, count], ...] lists into one sorted list."""
    total = {}
    for buckets in bucket_lists:
        for upper, count in buckets or []:
            total[float(upper)] = total.get(float(upper), 0) + int(count)
    return [[ub, n] for ub, n in sorted(total.items()) if n > 0]


def bucket_quantile(buckets, q):
    """Upper bound of the bucket holding quantile q (0..1); None if empty."""
    total = sum(n for _, n in buckets)
    if total == 0:
        return None
    rank = max(1, math.ceil(q * total))
    seen = 0
    for upper, n in buckets:
        seen += n
        if seen >= rank:
            return upper
    return buckets[-1][0]


def cdf_points(buckets):
    """[(upper_bound_us, fraction of events at or below it), ...]."""
    total = sum(n for _, n in buckets)
    seen, points = 0, []
    for upper, n in buckets:
        seen += n
        points.append((upper, seen / total))
    return points


def log_rebin(buckets, per_decade=20):
    """Regroups buckets into equal log-width bins: [(lo, hi, fraction)].

    The harness's log-linear buckets change width inside each power of
    two, which draws a sawtooth on a log axis; equal log widths do not.
    """
    total = sum(n for _, n in buckets)
    if total == 0:
        return []
    bins = {}
    for upper, n in buckets:
        i = math.floor(math.log10(max(upper, 1e-3)) * per_decade)
        bins[i] = bins.get(i, 0) + n
    lo_i, hi_i = min(bins), max(bins)
    return [(10 ** (i / per_decade), 10 ** ((i + 1) / per_decade), bins.get(i, 0) / total)
            for i in range(lo_i - 1, hi_i + 2)]


def bootstrap_ratio_ci(a, b, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED):
    """mean(b) / mean(a) with a 95% percentile-bootstrap interval.

    a and b are resampled independently with replacement (as
    il_bootstrap_ratio_ci does in C). Returns (ratio, lo, hi), or None
    when either side is empty or mean(a) is 0.
    """
    a, b = [float(x) for x in a], [float(x) for x in b]
    if not a or not b or statistics.fmean(a) == 0:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        ma = statistics.fmean(rng.choices(a, k=len(a)))
        mb = statistics.fmean(rng.choices(b, k=len(b)))
        ratios.append(mb / ma if ma else math.inf)
    ratios.sort()
    return (statistics.fmean(b) / statistics.fmean(a),
            _sorted_quantile(ratios, 0.025), _sorted_quantile(ratios, 0.975))


def _sorted_quantile(v, q):
    pos = q * (len(v) - 1)
    i = int(pos)
    if i + 1 >= len(v):
        return v[-1]
    return v[i] + (v[i + 1] - v[i]) * (pos - i)


def _direction(st, q):
    lo, hi = st[f"{q}_lo"], st[f"{q}_hi"]
    if lo is None or lo <= 1.0 <= hi:
        return "no clear difference"
    return "lower" if hi < 1.0 else "higher"


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _mean(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def _max(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def cell_stats(runs):
    """Aggregates the rounds of one cell.

    Processing percentiles are pooled over all rounds from the merged
    histogram (so p99.9 means something with few events per round), and
    the maximum is the largest per-round maximum. Presentation
    percentiles are the median of the per-round values (the report has no
    presentation histogram). Canary stall is the worst round; hog share
    and idle waste are round means.
    """
    merged = merge_buckets(get(r, "histogram.buckets", []) for r in runs)
    share = _mean(get(r, "hog.cpu_share") for r in runs)
    top = _max(get(r, "latency_us.processing.max") for r in runs)

    def pooled(q):
        # A bucket's upper bound can lie past the exact maximum.
        v = bucket_quantile(merged, q)
        return v if v is None or top is None else min(v, top)

    return {
        "rounds": len(runs),
        "events": sum(get(r, "events.sent", 0) for r in runs),
        "completed": sum(get(r, "events.completed", 0) for r in runs),
        "timed_out": sum(get(r, "events.timed_out", 0) for r in runs),
        "proc_p50_us": pooled(0.50),
        "proc_p90_us": pooled(0.90),
        "proc_p99_us": pooled(0.99),
        "proc_p999_us": pooled(0.999),
        "proc_max_us": top,
        "pres_p50_us": _median(get(r, "latency_us.presentation.p50") for r in runs),
        "pres_p99_us": _median(get(r, "latency_us.presentation.p99") for r in runs),
        "canary_max_stall_ms": _max(get(r, "canary.max_stall_ms") for r in runs),
        # cpu_share is a fraction (units live in names: *_pct is percent).
        "hog_share_pct": None if share is None else 100 * share,
        "idle_waste_pct": _mean(get(r, "hog.idle_waste_pct") for r in runs),
        "round_p50_us": [get(r, "latency_us.processing.p50") for r in runs],
        "round_p99_us": [get(r, "latency_us.processing.p99") for r in runs],
        "merged": merged,
        "hop_p50_us": hop_medians(runs),
    }


def hop_medians(runs):
    """{hop index: (name, median of p50_us across runs)} for hops 1..12."""
    values, names = {}, {}
    for r in runs:
        for h in r.get("hops") or []:
            if h.get("p50_us") is not None and h.get("index") is not None:
                values.setdefault(h["index"], []).append(h["p50_us"])
                names.setdefault(h["index"], h.get("name") or f"hop {h['index']}")
    return {k: (names[k], statistics.median(v)) for k, v in sorted(values.items())}


def add_ratios(cells, reference="cfs"):
    """Adds p50/p99 ratios to the reference policy of the same scenario.

    cells: {(policy, scenario): stats}. Each ratio is mean of the cell's
    per-round values over the mean of the reference's, with a bootstrap
    interval across rounds; "verdict" says whether it crosses 1.0.
    """
    for (policy, scenario), st in cells.items():
        ref = cells.get((reference, scenario))
        st["verdict"] = ""
        for q in ("p50", "p99"):
            st[f"{q}_ratio"] = st[f"{q}_lo"] = st[f"{q}_hi"] = None
            if ref is None:
                continue
            mine = [v for v in st[f"round_{q}_us"] if v is not None]
            theirs = [v for v in ref[f"round_{q}_us"] if v is not None]
            ci = bootstrap_ratio_ci(theirs, mine)
            if ci:
                st[f"{q}_ratio"], st[f"{q}_lo"], st[f"{q}_hi"] = ci
        if ref is None:
            st["verdict"] = f"no {reference} cell"
        elif st["rounds"] == 0:
            st["verdict"] = "no run succeeded"
        elif policy == reference:
            st["verdict"] = "reference"
        elif st["p50_ratio"] is None:
            st["verdict"] = "no data"
        elif min(len(st["round_p50_us"]), len(ref["round_p50_us"])) < 2:
            st["verdict"] = "one round: no interval"
        else:
            st["verdict"] = ", ".join(f"{q} " + _direction(st, q) for q in ("p50", "p99"))
    return cells


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
    ("proc_p999_us", "p99.9", "proc_p999_us", "{:.0f}"),
    ("proc_max_us", "max", "proc_max_us", "{:.0f}"),
    ("pres_p50_us", "pres p50 µs", "pres_p50_us", "{:.0f}"),
    ("pres_p99_us", "pres p99", "pres_p99_us", "{:.0f}"),
    ("canary_max_stall_ms", "canary stall ms", "canary_max_stall_ms", "{:.1f}"),
    ("hog_share_pct", "hog share %", "hog_share_pct", "{:.1f}"),
    ("idle_waste_pct", "idle waste %", "idle_waste_pct", "{:.1f}"),
    ("p50_ratio", None, "p50_ratio", "{:.3f}"),
    ("p50_ci_lo", None, "p50_lo", "{:.3f}"),
    ("p50_ci_hi", None, "p50_hi", "{:.3f}"),
    ("p99_ratio", None, "p99_ratio", "{:.3f}"),
    ("p99_ci_lo", None, "p99_lo", "{:.3f}"),
    ("p99_ci_hi", None, "p99_hi", "{:.3f}"),
    ("verdict", "vs cfs", "verdict", "{}"),
]

COLUMN_DOC = """\
Columns of summary.csv (one row per policy × scenario cell; "-" = not measured):
policy, scenario; rounds (rounds with a usable report); events, completed,
timed_out (sums over rounds); proc_p50_us .. proc_p999_us (processing latency
percentiles pooled over rounds from the merged histogram, µs); proc_max_us
(largest per-round maximum); pres_p50_us, pres_p99_us (median over rounds of
presentation latency percentiles, µs); canary_max_stall_ms (worst round);
hog_share_pct (hog CPU share, mean over rounds, %); idle_waste_pct (mean over
rounds, %); p50_ratio, p99_ratio (mean per-round percentile of this cell over
that of the cfs cell of the same scenario) with p50_ci_lo/hi, p99_ci_lo/hi
(95% bootstrap interval over rounds, 2000 resamples, seed 1); verdict (for
p50 and p99: "lower" or "higher" than cfs, or "no clear difference" when the
interval crosses 1.0; "reference" for cfs itself)."""


def fmt(value, spec="{}"):
    """A table cell: "-" for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return spec.format(value)


def ratio_text(st, q):
    """"0.71 (0.65–0.78)" for the markdown table."""
    if st.get(f"{q}_ratio") is None:
        return "-"
    if st.get(f"{q}_lo") is None or st["rounds"] < 2:
        return f"{st[q + '_ratio']:.2f}"
    return f"{st[q + '_ratio']:.2f} ({st[q + '_lo']:.2f}–{st[q + '_hi']:.2f})"


def write_summary_csv(path, cells):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([c[0] for c in COLUMNS])
        for (policy, scenario), st in cells.items():
            row = dict(st, policy=policy, scenario=scenario)
            w.writerow([fmt(row.get(key), spec) for _, _, key, spec in COLUMNS])


def write_summary_md(path, cells, header_lines, notes):
    heads = [c[1] for c in COLUMNS if c[1]]
    heads[-1:-1] = ["p50 / cfs (95% CI)", "p99 / cfs (95% CI)"]
    lines = ["# inputlat policy sweep", ""] + [f"- {h}" for h in header_lines] + [""]
    lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for (policy, scenario), st in cells.items():
        row = dict(st, policy=policy, scenario=scenario)
        vals = [fmt(row.get(key), spec) for _, head, key, spec in COLUMNS if head]
        vals[-1:-1] = [ratio_text(st, "p50"), ratio_text(st, "p99")]
        lines.append("| " + " | ".join(vals) + " |")
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    lines += ["", "## Columns", "", COLUMN_DOC, ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
