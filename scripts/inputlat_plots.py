"""gnuplot charts of a policy sweep, and index.md with one reading per chart.

make_plots() writes DIR/plots/*.png (plus the .gp scripts and data files
that made them, so a chart can be re-drawn or tweaked by hand) and
returns what index.md lists. Standard library only; gnuplot does the
drawing.

Every chart says how many events it shows (per policy, in the key) and
the kernel and CPUs it was measured on, and agrees with summary.md by
construction: the hops chart stacks per-hop means, which add up to the
table's mean, and marks the table's p50; the percentile chart marks the
table's p50 too.
"""

import math
import os
import shutil
import subprocess

import inputlat_stats as st

# One colour per policy, the same on every chart (no pale yellow: it vanishes).
POLICY_COLOURS = ["#000000", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                  "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
# Twelve distinguishable colours, one per hop (Tableau 20, darker half).
HOP_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a"]


def human_us(us):
    """812 µs, 3.14 ms, 1.20 s."""
    if us is None:
        return "-"
    if us < 1000:
        return f"{us:.0f} µs"
    if us < 1e6:
        return f"{us / 1e3:.3g} ms"
    return f"{us / 1e6:.3g} s"


class Gnuplot:
    """Runs gnuplot scripts into PNGs; pngcairo when it is there."""

    def __init__(self, plotdir):
        self.exe = shutil.which("gnuplot")
        self.dir = plotdir
        self.cairo = self.exe is not None and subprocess.run(
            [self.exe, "-e", "set terminal pngcairo"], capture_output=True).returncode == 0
        self.us = "µs" if self.cairo else "us"

    def terminal(self, width=960, height=600):
        if self.cairo:
            return f"set terminal pngcairo size {width},{height} noenhanced font 'sans,11'"
        return f"set terminal png size {width},{height} noenhanced"

    def draw(self, name, body, width=960, height=600):
        """Writes plots/NAME.gp and runs it; returns the PNG's path or None."""
        script = os.path.join(self.dir, name + ".gp")
        st.write_text(script, f"set encoding utf8\n{self.terminal(width, height)}\n"
                      f"set output '{name}.png'\nset grid\n{body}\n")
        r = st.run_child([self.exe, name + ".gp"], cwd=self.dir)
        if r.returncode != 0:
            raise RuntimeError(f"gnuplot {name}.gp failed: {st.last_line(r.stderr, st.how_it_ended(r.returncode))}")
        return os.path.join(self.dir, name + ".png")

    def data(self, name, rows):
        """Writes plots/data/NAME.dat (whitespace columns); returns its relative path."""
        os.makedirs(os.path.join(self.dir, "data"), exist_ok=True)
        rel = f"data/{name}.dat"
        st.write_text(os.path.join(self.dir, rel),
                      "".join(" ".join(str(v) for v in row) + "\n" for row in rows))
        return rel


def _q(s):
    """A gnuplot single-quoted string."""
    return "'" + str(s).replace("'", "''") + "'"


def _title(*lines):
    """A title of several lines (a double-quoted gnuplot string, \\n between lines)."""
    return '"' + "\\n".join(str(x).replace("\\", "\\\\").replace('"', '\\"') for x in lines) + '"'



def _with_data(cells, scenario, policies):
    return [p for p in policies if cells.get((p, scenario), {}).get("merged")]


def _n(cells, scenario, p):
    """Events in a cell's merged histogram."""
    return sum(n for _, n in cells[(p, scenario)]["merged"])


def _lost(cells, scenario, p):
    """Events the cell's rounds lost (timed out, dropped, in flight): in
    every fraction's total, at or below no latency."""
    return cells[(p, scenario)].get("lost") or 0


def _key(cells, scenario, p):
    """A policy's key entry: its name and how many events the chart shows of it."""
    c, n, lost = cells[(p, scenario)], _n(cells, scenario, p), _lost(cells, scenario, p)
    shown = f"n={n} completed of {n + lost}" if lost else f"n={n}"
    return f"{p} ({shown}, {c['rounds']} rounds)"


def _policy_lines(policies):
    """Linetype per policy, by its position in the whole sweep's list."""
    return "\n".join(f"set linetype {i + 1} lc rgb '{POLICY_COLOURS[i % len(POLICY_COLOURS)]}' lw 2"
                      f"{' dt 2' if i >= len(POLICY_COLOURS) else ''}" for i in range(len(policies)))


def _xrange(cells, scenario, pols):
    ubs = [ub for p in pols for ub, _ in cells[(p, scenario)]["merged"]]
    lo, hi = min(ubs) * 0.8, max(ubs) * 1.25
    # Labels at 1-2-5 steps: a log axis over one decade otherwise shows one number.
    tics = [m * 10 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            for m in (1, 2, 5) if lo <= m * 10 ** e <= hi]
    return (f"set xrange [{lo:g}:{hi:g}]\n"
            "set xtics (" + ", ".join(f"'{t:.0f}' {t:g}" for t in tics) + ")")


def cdf_chart(gp, cells, scenario, policies, machine):
    pols = _with_data(cells, scenario, policies)
    if not pols:
        return None
    plots = []
    for p in pols:
        points = st.cdf_points(cells[(p, scenario)]["merged"], _lost(cells, scenario, p))
        rel = gp.data(f"cdf-{scenario}-{p}", [(points[0][0], 0)] + points)
        plots.append(f"{_q(rel)} using 1:2 with steps lt {policies.index(p) + 1} "
                     f"title {_q(_key(cells, scenario, p))}")
    name = f"cdf-{scenario}"
    gp.draw(name, f"""{_policy_lines(policies)}
{_xrange(cells, scenario, pols)}
set title {_title(f'Processing latency CDF, scenario {scenario} (all rounds pooled)', machine)}
set logscale x
set xlabel {_q(f'processing latency, mouse-down to page-flip request ({gp.us}, log scale)')}
set ylabel 'fraction of mouse-downs at or below x'
set yrange [0:1.02]
set key bottom right box opaque
plot {', '.join(plots)}""")

    # The same ratios and verdicts as summary.md, from `inputlat compare`.
    ratios = [f"{p} {c['p50_ratio']:.2f}× ({c.get('p50_verdict') or '-'})"
              for p in pols if p != "cfs" and (c := cells[(p, scenario)]).get("p50_ratio") is not None]
    # Percentiles come from `inputlat compare`: where it gave none (it
    # failed for this scenario, said in the summary's notes), none is named.
    p50s = [p for p in pols if cells[(p, scenario)].get("proc_p50_us") is not None]
    p99s = [p for p in pols if cells[(p, scenario)].get("proc_p99_us") is not None]
    reading = f"under {scenario}, "
    if ratios:
        reading += f"p50 relative to cfs: {', '.join(ratios)}; "
    elif p50s:
        best = min(p50s, key=lambda p: cells[(p, scenario)]["proc_p50_us"])
        reading += f"lowest p50: {best} ({human_us(cells[(best, scenario)]['proc_p50_us'])}); "
    if p99s:
        # A description of the rounds, not a verdict: summary.md says which
        # differences hold (and how many events a round needs for a p99).
        worst = max(p99s, key=lambda p: cells[(p, scenario)]["proc_p99_us"])
        reading += (f"highest p99 (geometric mean over rounds, no test here): {worst} "
                    f"({human_us(cells[(worst, scenario)]['proc_p99_us'])}).")
    else:
        reading += "no percentiles: inputlat compare gave none (see the summary's notes)."
    return name, f"Processing latency CDF, {scenario}", reading


def histogram_chart(gp, cells, scenario, policies, machine):
    pols = _with_data(cells, scenario, policies)
    if not pols:
        return None
    plots = []
    for p in pols:
        bins = st.log_rebin(cells[(p, scenario)]["merged"], lost=_lost(cells, scenario, p))
        rows = [(lo, hi, 100 * frac) for lo, hi, frac in bins] + [(bins[-1][1], bins[-1][1], 0)]
        rel = gp.data(f"hist-{scenario}-{p}", rows)
        plots.append(f"{_q(rel)} using 1:3 with steps lt {policies.index(p) + 1} "
                     f"title {_q(_key(cells, scenario, p))}")
    name = f"hist-{scenario}"
    gp.draw(name, f"""{_policy_lines(policies)}
{_xrange(cells, scenario, pols)}
set title {_title(f'Processing latency histogram, scenario {scenario} (all rounds pooled)', machine)}
set logscale x
set xlabel {_q(f'processing latency ({gp.us}, log scale, 20 bins per decade)')}
set ylabel 'share of mouse-downs per bin (%)'
set yrange [0:*]
set key top right box opaque
plot {', '.join(plots)}""")

    # Of the table's figures (geometric means over rounds), so the two
    # readings agree; a description, not a verdict. A cell without both
    # (compare gave none: its p99 beyond the timeout, too few events) has
    # no tail to rank, and says so.
    tails = {p: c["proc_p99_us"] / c["proc_p50_us"] for p in pols
             if (c := cells[(p, scenario)]).get("proc_p50_us") and c.get("proc_p99_us")}
    reading = f"under {scenario}, the tail (p99/p50 of the geometric means over rounds; no test here)"
    if len(tails) > 1:
        narrow, wide = min(tails, key=tails.get), max(tails, key=tails.get)
        reading += (f" is tightest for {narrow} ({tails[narrow]:.2f}×) and longest for {wide} "
                    f"({tails[wide]:.2f}×)")
    elif tails:
        (p, t), = tails.items()
        reading += f" is {t:.2f}× for {p}"
    else:
        reading += " has no figure"
    none = [p for p in pols if p not in tails]
    few = [p for p in none if cells[(p, scenario)].get("too_few", {}).keys()
           & {"proc_p50_us", "proc_p99_us"}]
    if few:
        short = sorted({k[5:-3] for p in few for k in cells[(p, scenario)]["too_few"]
                        if k in ("proc_p50_us", "proc_p99_us")})
        reading += (f"; {', '.join(few)} {'has' if len(few) == 1 else 'have'} none (rounds too "
                    f"short for a {' or '.join(short)}: summary.md's n/a)")
    none = [p for p in none if p not in few]
    if none:
        missing = sorted({w for p in none for w, k in (("p50", "proc_p50_us"), ("p99", "proc_p99_us"))
                          if not cells[(p, scenario)].get(k)})
        reading += (f"; {', '.join(none)} {'has' if len(none) == 1 else 'have'} none (no "
                    f"{' or '.join(missing)} from inputlat compare: summary.md's notes say why)")
    return name, f"Processing latency histogram, {scenario}", reading + "."


def hops_chart(gp, cells, scenario, policies, machine):
    pols = [p for p in policies if cells.get((p, scenario), {}).get("hop_mean_us")]
    if not pols:
        return None
    # Hops 1-11 add up to processing latency, and so do their means, to the
    # table's mean; hop 12 is the wait for vblank, up to a frame, left out.
    hops = sorted({k for p in pols for k in cells[(p, scenario)]["hop_mean_us"] if k < 12})
    names = {}
    for p in pols:
        for k, (n, _) in cells[(p, scenario)]["hop_mean_us"].items():
            names.setdefault(k, n)
    header = ["policy"] + ['"%d %s"' % (k, names[k].replace('"', "")) for k in hops] + ['"p50"']
    rows = [header]
    for i, p in enumerate(pols):
        h, c = cells[(p, scenario)]["hop_mean_us"], cells[(p, scenario)]
        p50 = c.get("proc_p50_us")
        # A hop the cell's reports lack is no bar ('-', gnuplot's missing),
        # never a 0 that would claim it took no time.
        rows.append([f'"{_key(cells, scenario, p)}"'] + [h[k][1] if k in h else "-" for k in hops]
                    + [p50 if p50 is not None else "-"])
    rel = gp.data(f"hops-{scenario}", rows)
    colours = "\n".join(f"set linetype {i + 1} lc rgb '{c}'" for i, c in enumerate(HOP_COLOURS))
    name = f"hops-{scenario}"
    p50_col = len(hops) + 2
    gp.draw(name, f"""{colours}
set linetype 20 lc rgb '#000000' pt 13 ps 2.2
set title {_title(f'Where the time goes, scenario {scenario}: mean per hop of the completed events; '
                  f'the bars add up to their mean processing latency (summary.md: mean, '
                  f'"-" where a round lost events)'
                  + ('; a hop its reports lack is no bar, and its bars add up to less'
                     if any(cells[(p, scenario)].get("hop_gaps") for p in pols) else ''),
                  f'diamonds: processing p50 (summary.md: proc p50); {machine}')} noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb 'black'
set datafile missing '-'
set boxwidth 0.6
set key outside right top title 'hop (stamp k - stamp k-1)'
set xlabel 'policy (n = events, all rounds pooled)'
set ylabel {_q(f'mean per-hop latency ({gp.us}), stacked')}
set yrange [0:*]
set xtics rotate by -15
set grid noxtics ytics
plot for [i=2:{len(hops) + 1}] {_q(rel)} using i:xtic(1) title columnheader(i), \
     {_q(rel)} using ($0-1):{p50_col} with points lt 20 title 'processing p50'""", width=1200)

    policy, hop, value = max(((p, k, v) for p in pols
                              for k, (_, v) in cells[(p, scenario)]["hop_mean_us"].items() if k in hops),
                             key=lambda t: t[2])
    total = sum(v for k, (_, v) in cells[(policy, scenario)]["hop_mean_us"].items() if k in hops)
    lost = _lost(cells, scenario, policy)
    gaps = sorted(k for k in (cells[(policy, scenario)].get("hop_gaps") or {}) if k < 12)
    # The hops' means are of the completed events: where some were lost,
    # the bars are not the cell's mean (summary.md's is '-' then); where
    # its reports lack a hop, they add up to the hops it has.
    if gaps:
        of = f"the {human_us(total)} its bars add up to (no hop {', '.join(map(str, gaps))})"
    elif lost:
        of = f"the {human_us(total)} mean of its {_n(cells, scenario, policy)} completed events"
    else:
        of = f"its {human_us(total)} mean processing latency"
    reading = (f"under {scenario}, the largest mean hop is {hop} ({names[hop]}) with {policy}: "
               f"{human_us(value)} of {of} ({100 * value / total:.0f}%"
               f"{f'; {lost} more were lost, in no bar' if lost else ''}).")
    absent = [f"{p} has no hop {', '.join(map(str, ks))}" for p in pols
              if (ks := sorted(k for k in (cells[(p, scenario)].get("hop_gaps") or {}) if k < 12))]
    if absent:
        reading += (f" Not drawn, not 0: {'; '.join(absent)} (not in its reports: the summary "
                    "says which rounds).")
    return name, f"Mean per-hop latency, {scenario}", reading


def percentile_chart(gp, cells, scenario, policies, machine):
    """Latency by percentile on a log tail axis (p50, p90, ... p99.9), as HdrHistogram plots it."""
    pols = _with_data(cells, scenario, policies)
    if not pols:
        return None
    plots, top = [], 0
    for p in pols:
        # x = 1 / (1 - F): 2 at the median, 10 at p90, 100 at p99, 1000 at p99.9.
        pts = [(1 / max(1 - f, 1e-6), ub)
               for ub, f in st.cdf_points(cells[(p, scenario)]["merged"], _lost(cells, scenario, p))
               if f < 1]
        n = _n(cells, scenario, p)
        top = max(top, n)
        rel = gp.data(f"pct-{scenario}-{p}", [(1, pts[0][1] if pts else 0)] + pts)
        plots.append(f"{_q(rel)} using 1:2 with steps lt {policies.index(p) + 1} "
                     f"title {_q(_key(cells, scenario, p))}")
        p50 = cells[(p, scenario)].get("proc_p50_us")
        if p50 is not None:
            prel = gp.data(f"pct50-{scenario}-{p}", [(2, p50)])
            plots.append(f"{_q(prel)} using 1:2 with points lt {policies.index(p) + 1} pt 13 ps 1.8 "
                         "notitle")
    xmax = max(10, min(10 ** 4, top))
    tics = [(lab, x) for lab, x in (("p50", 2), ("p90", 10), ("p99", 100), ("p99.9", 1000),
                                   ("p99.99", 10000)) if x <= xmax]
    name = f"pct-{scenario}"
    gp.draw(name, f"""{_policy_lines(policies)}
set title {_title(f'Processing latency by percentile, scenario {scenario} (all rounds pooled)',
                  f'diamonds: proc p50 of summary.md; {machine}')}
set logscale x
set logscale y
set xrange [1:{xmax:g}]
set xtics ({', '.join(f"'{lab}' {x}" for lab, x in tics)})
set xlabel 'percentile (log tail axis: each step right is 10x rarer)'
set ylabel {_q(f'processing latency ({gp.us}, log scale)')}
set key top left box opaque
plot {', '.join(plots)}""")
    tails = []
    for p in pols:
        b = cells[(p, scenario)]["merged"]
        lost = _lost(cells, scenario, p)
        q50, q99 = st.bucket_quantile(b, 0.5, lost), st.bucket_quantile(b, 0.99, lost)
        if q50 and q99:
            tails.append((q99 / q50, p))
    reading = f"under {scenario}, "
    if tails:
        lo, hi = min(tails), max(tails)
        # Of the pooled curves this chart draws (the histogram chart's
        # figure is of the table's means over rounds: the two differ).
        reading += (f"in the pooled curves the tail rises least for {lo[1]} (p99 {lo[0]:.2f}× "
                    f"its p50) and most for {hi[1]} ({hi[0]:.2f}×), no test here; the curves "
                    f"past p99 rest on few events each.")
    return name, f"Processing latency by percentile, {scenario}", reading


def canary_interval(cells, keys):
    """How often the canary wakes, from the reports of the cells keys
    (canary.interval_us): "wakes every 1 ms", or unreadable where the
    reports lack it or disagree."""
    vals = sorted({v for k in keys for v in cells[k].get("canary_interval_us") or []})
    unsaid = sum(cells[k].get("canary_interval_unsaid") or 0 for k in keys)
    if unsaid:
        return (f"wakes every: unreadable, {unsaid} report{'s' if unsaid != 1 else ''} "
                "without canary.interval_us")
    if len(vals) != 1:
        said = ", ".join(human_us(v) for v in vals)
        return f"wakes every: unreadable, the reports disagree ({said})" if vals else \
            "wakes every: unreadable, no report says"
    return f"wakes every {human_us(vals[0])}"


def canary_chart(gp, cells, scenarios, policies, machine):
    stalls = {(p, s): cells[(p, s)]["canary_max_stall_ms"] for p in policies for s in scenarios
              if cells.get((p, s), {}).get("canary_max_stall_ms") is not None}
    if not stalls:
        return None
    rows = [["policy"] + [f'"{s}"' for s in scenarios]]
    for p in policies:
        rows.append([p] + [stalls.get((p, s), "-") for s in scenarios])
    rel = gp.data("canary", rows)
    positive = [v for v in stalls.values() if v > 0]
    logy = positive and max(positive) / min(positive) > 50
    yrange = (f"set logscale y\nset yrange [{min(positive) / 2:g}:{max(positive) * 2:g}]" if logy
              else "set yrange [0:*]")
    name = "canary"
    gp.draw(name, f"""set title {_title(f'Canary (CFS, {canary_interval(cells, stalls)}): longest scheduling stall, median of rounds', machine)}
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb 'black'
set datafile missing '-'
set key top left box opaque title 'scenario'
set xlabel 'policy'
set ylabel 'longest canary stall (ms{", log scale" if logy else ""})'
{yrange}
set grid noxtics ytics
plot for [i=2:{len(scenarios) + 1}] {_q(rel)} using i:xtic(1) title columnheader(i)""")

    (wp, ws), (bp, bs) = max(stalls, key=stalls.get), min(stalls, key=stalls.get)
    # Each bar is a median over rounds (describe_rounds): a round may have
    # stalled longer than any bar.
    reading = (f"of the medians over rounds of each round's longest canary stall, the highest "
               f"is {stalls[(wp, ws)]:.1f} ms ({wp} under {ws}); the lowest is "
               f"{stalls[(bp, bs)]:.1f} ms ({bp} under {bs}).")
    return name, "Canary stall per policy", reading


def make_plots(outdir, cells, policies, scenarios, machine):
    """Draws every chart; returns ([(png, title, reading)], [problems])."""
    plotdir = os.path.join(outdir, "plots")
    os.makedirs(plotdir, exist_ok=True)
    gp = Gnuplot(plotdir)
    if gp.exe is None:
        return [], ["gnuplot not found: install gnuplot-nox for the charts"]
    charts, problems = [], []
    jobs = [(f, s) for s in scenarios
            for f in (percentile_chart, cdf_chart, histogram_chart, hops_chart)]
    for f, s in jobs + [(canary_chart, None)]:
        try:
            made = (f(gp, cells, scenarios, policies, machine) if s is None
                    else f(gp, cells, s, policies, machine))
        except (RuntimeError, OSError) as e:
            problems.append(str(e))
            continue
        if made is None:
            problems.append(f"{f.__name__.replace('_chart', '')} chart"
                            f"{' for ' + s if s else ''}: no data in the run reports")
            continue
        name, title, reading = made
        charts.append((f"plots/{name}.png", title, reading))
    return charts, problems


def write_index(path, charts, problems, header_lines, summary_lines):
    lines = ["# inputlat policy sweep: charts", "", "## What it found", ""]
    lines += summary_lines[:1] + [""] + [f"- {s}" for s in summary_lines[1:]]
    lines += ["", "## The runs", ""]
    lines += [f"- {h}" for h in header_lines]
    lines += ["", "Table: [summary.md](summary.md) ([CSV](summary.csv)).", ""]
    for png, title, reading in charts:
        lines += [f"## {title}", "", f"![{title}]({png})", "", f"[{png}]({png}): {reading}", ""]
    if problems:
        lines += ["## Not drawn", ""] + [f"- {p}" for p in problems] + [""]
    st.write_text(path, "\n".join(lines))
