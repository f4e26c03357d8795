"""What a policy sweep found, in plain words, computed from its cells.

summarize() returns the lines scripts/policy-sweep prints at its end and
puts at the top of summary.md and index.md. Every figure comes from the
cells (descriptions of the rounds) or from `inputlat compare` (intervals
and verdicts); nothing is typed in. Where a figure could not be measured,
the line says so and why. The hog scenario's lines come last, so the end
of scripts/main-job names the canary stall and the lost mouse-downs.
"""

import inputlat_stats as st


def _us(v):
    return "-" if v is None else f"{v:,.0f} µs"


def _ms(v):
    return "-" if v is None else (f"{v:.1f} ms" if v < 10 else f"{v:,.0f} ms")


def _spread(values, unit=_ms):
    """"951 ms" for one round, "951 ms (949-953 over 4 rounds)" for several."""
    if not values:
        return None
    values = sorted(values)
    mid = values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] +
                                                             values[len(values) // 2]) / 2
    if len(values) == 1 or unit(values[0]) == unit(values[-1]):
        return unit(mid) + (f" in each of {len(values)} rounds" if len(values) > 1 else "")
    return f"{unit(mid)} ({unit(values[0])} to {unit(values[-1])} over {len(values)} rounds)"


def _ranked(cells, policies, scenario, stat):
    """[(value, policy)] of a scenario, lowest processing `stat` first."""
    key = f"proc_{stat}_us"
    return sorted((cells[(p, scenario)][key], p) for p in policies
                  if cells.get((p, scenario), {}).get(key) is not None)


def _min_events(cells, policies, scenario, stat):
    """The events a round needs for processing `stat`, from inputlat
    compare's rows of the scenario (None where it gave none)."""
    for p in policies:
        need = (cells.get((p, scenario), {}).get(f"{stat}_cmp") or {}).get("min_events")
        if isinstance(need, (int, float)):
            return need
    return None


def _lowest(inputlat, cells, policies, scenario, stat, reference, alpha):
    """One sentence: the policy with the lowest `stat` in a scenario, and by how much."""
    ranked = _ranked(cells, policies, scenario, stat)
    have = [p for p in policies if cells.get((p, scenario), {}).get("rounds")]
    # The events a round needs for this figure, as inputlat compare says
    # (min_events of its rows; the table's rule where it gave none): below
    # that, which policy's is lowest is the noise of a few events, and the
    # table has no such figure ("n/a").
    need = _min_events(cells, policies, scenario, stat) or st.min_events(st.QUANTILES[stat])
    fewest = min((cells[(p, scenario)].get("events_per_round") or 0 for p in have), default=None)
    if have and need and fewest < need:
        return (f"no processing {stat} ranking: rounds of {fewest} events here (a round's "
                f"{stat} needs {need})")
    if not ranked:
        # Rounds that completed but have no figure: `inputlat compare`
        # failed for the scenario (its line is among the notes).
        if have:
            return (f"no processing {stat}: inputlat compare gave no figures for these rounds "
                    "(summary.md's notes say why)")
        return f"no processing {stat}: no policy completed a round here"
    value, best = ranked[0]
    text = f"lowest processing {stat}: {best}, {_us(value)}"
    nxt = None
    if len(ranked) > 1:
        nxt = ranked[1][1]
        try:
            res = st.compare(inputlat, [cells[(nxt, scenario)]["round_files"],
                                       cells[(best, scenario)]["round_files"]],
                             alpha=alpha)
            text += "; " + st.change_text(st.comparisons(res, 1).get(stat, {}), nxt, alpha)
        except st.RunError as e:
            text += f"; against {nxt}: no statistics ({e})"
    ref = cells.get((reference, scenario))
    # Against the reference too, unless it was the runner-up just compared
    # (an A/A sweep printed "0.99x cfs ...; 0.99x cfs ..." once).
    if best != reference and nxt != reference and ref and ref.get("rounds"):
        text += "; " + st.change_text(cells[(best, scenario)].get(f"{stat}_cmp") or {}, reference,
                                      alpha)
    return text


def _idle_waste_cells(cells, scenario):
    return cells.get(("rt-throttled", scenario)), cells.get(("rt-fair-server", scenario))


def family_p_values(inputlat, a, cells, policies, reference="cfs"):
    """The p-values (at 5%) of the verdicts summarize() adds to the table's:
    each scenario's lowest policy against its runner-up (where neither is
    the reference: the table has that pair, and one hypothesis counted
    twice would tighten every verdict's level), and the idle waste of
    throttling. With the table's own, they form the sweep's family."""
    ps = []
    for s in a.scenarios:
        for stat in ("p50", "p99"):
            ranked = _ranked(cells, policies, s, stat)
            if len(ranked) < 2 or reference in (ranked[0][1], ranked[1][1]):
                continue
            try:
                res = st.compare(inputlat, [cells[(ranked[1][1], s)]["round_files"],
                                            cells[(ranked[0][1], s)]["round_files"]])
            except st.RunError:
                continue
            ps.append((st.comparisons(res, 1).get(stat) or {}).get("p_value"))
    hog = next((s for s in ("hog", "load+hog") if s in a.scenarios), None)
    thr, fs = _idle_waste_cells(cells, hog) if hog else (None, None)
    if thr and fs and thr["idle_waste_pct"] and fs["idle_waste_pct"]:
        try:
            res = st.compare(inputlat, [fs["round_files"], thr["round_files"]], metrics=["diff:hog.idle_waste_pct"])
            ps.append((st.comparisons(res, 1).get("hog.idle_waste_pct") or {}).get("p_value"))
        except st.RunError:
            pass
    return ps


def _idle_waste(inputlat, cells, scenario, alpha):
    thr, fs = _idle_waste_cells(cells, scenario)
    if not thr or not fs or not thr["idle_waste_pct"] or not fs["idle_waste_pct"]:
        which = [n for n, c in (("rt-throttled", thr), ("rt-fair-server", fs))
                 if not c or not c["idle_waste_pct"]]
        return (f"Idle waste of RT throttling against the fair server: not measured here "
                f"(no {' or '.join(which)} rounds with hog.idle_waste_pct under the {scenario})")
    text = (f"Idle waste under the {scenario} (CPU time the hogs' CPUs sat idle): rt-throttled "
            f"{_spread(thr['idle_waste_pct'], lambda v: f'{v:.2f}%')}, rt-fair-server "
            f"{_spread(fs['idle_waste_pct'], lambda v: f'{v:.2f}%')}")
    try:
        res = st.compare(inputlat, [fs["round_files"], thr["round_files"]], metrics=["diff:hog.idle_waste_pct"],
                         alpha=alpha)
        c = st.comparisons(res, 1).get("hog.idle_waste_pct", {})
    except st.RunError as e:
        return text + f"; no statistics ({e})"
    d, lo, hi = c.get("estimate"), c.get("lo"), c.get("hi")
    if d is None:
        return text
    if lo is None:
        return text + f"; throttling {d:+.2f} points ({st.verdict_text(c)})"
    what = {"higher": "wastes more", "lower": "wastes less"}.get(c.get("verdict"),
                                                                  "no clear difference")
    return (text + f": throttling {what}, {d:+.2f} percentage points "
            f"({st.confidence(alpha)} interval {lo:+.2f} to {hi:+.2f})")


def _timeout(ms):
    return f"{ms / 1000:g} s" if ms >= 1000 and ms % 1000 == 0 else f"{ms:g} ms"


def _ran_with(cells, have, scenario, key, words, absent):
    """What the rounds of the cells ran with, as their reports say
    (cell_stats' distinct values of key), in words; absent when none says."""
    vals = sorted({v for p in have for v in cells[(p, scenario)].get(key) or []})
    return " or ".join(words(v) for v in vals) if vals else absent


# What a report's scenario.hog_mode runs, in words ("JS hog" was said of busy loops too).
_HOG_MODE_WORDS = {"js": "JavaScript", "busy": "busy loops", "bursty": "bursty tasks"}


def _hog_words(h):
    n, mode = h
    return (f"{n:g} hog thread{'s' if n != 1 else ''} running "
            f"{_HOG_MODE_WORDS.get(mode, printable(mode))}")


def _hog_lines(cells, policies, scenario):
    have = [p for p in policies if cells.get((p, scenario), {}).get("rounds")]
    if not have:
        return [f"Under the hog: nothing measured ({scenario} cells have no successful round)"]
    stalls, timeouts = [], []
    for p in have:
        c = cells[(p, scenario)]
        s = _spread(c["canary_stall_ms"])
        stalls.append(f"{p} {s}" if s else f"{p} not measured (no canary in the reports)")
        # Each count as the reports give it: a lost event timed out or was
        # still in flight when the run ended; the dropped are of the timed out.
        dropped = ("dropped unreadable (not in every report)" if c.get("dropped") is None
                   else f"{c['dropped']} of them dropped by a full queue")
        flight = ("in flight unreadable (not in every report)" if c.get("in_flight") is None
                  else f"{c['in_flight']} in flight")
        timeouts.append(f"{p} {c.get('lost', 0)} of {c['events']} ({c['timed_out']} timed out, "
                        f"{dropped}; {flight})")
    # The hog and the timeout the runs had, from their reports, not the
    # defaults of the day.
    hog = _ran_with(cells, have, scenario, "hogs", _hog_words, "a hog the reports do not describe")
    within = _ran_with(cells, have, scenario, "timeout_ms", _timeout,
                       "the runs' timeout, which the reports do not say")
    return [f"Under the hog ({scenario}: {hog}, in the role each policy "
            f"gives js), the CFS canary's longest stall (median of rounds): " + ", ".join(stalls),
            f"Under the hog ({scenario}), mouse-downs lost (timed out: no frame within {within}; "
            f"in flight: neither completed nor timed out when the run ended): "
            + ", ".join(timeouts)]


def _attribution_line(cells, policies, scenario):
    """Per cell of the scenario: the median run-queue share of processing
    latency over the rounds and the thread that held the CPUs longest."""
    parts = []
    for p in policies:
        c = cells.get((p, scenario), {})
        if not c.get("rounds"):
            continue
        shares, culprits = c.get("runqueue_share_pct") or [], c.get("culprits") or {}
        if not shares:
            parts.append(f"{p} unreadable: {c.get('attribution_why') or 'no attribution'}")
            continue
        # Each figure with the rounds it is of: a round may have culprits
        # and no run-queue share (no runqueue component in its report).
        text = (f"{p} runqueue {st._median(shares):.0f}% (median of {len(shares)} "
                f"round{'s' if len(shares) != 1 else ''}; ")
        k = c.get("culprit_rounds") or 0
        if culprits:
            top = max(culprits, key=culprits.get)
            text += (f"top culprit {printable(top)}, {culprits[top]:,.0f} ms summed over "
                     f"{k} round{'s' if k != 1 else ''})")
        else:
            text += (f"nothing held a CPU the pipeline waited for, in {k} "
                     f"round{'s' if k != 1 else ''} with culprits)")
        parts.append(text)
    if not parts:
        return None
    return f"{scenario}: where processing waited: " + ", ".join(parts)


def printable(name):
    """Another process's name as text (st.printable: control characters as '?')."""
    return st.printable(name)


def summarize(inputlat, a, cells, policies, cannot, head, reference="cfs"):
    """The plain-words summary of a sweep: a list of lines, without bullets.
    a.level, a.family, a.rejected: the family's level (family_level)."""
    alpha, m = getattr(a, "level", st.ALPHA), getattr(a, "family", 0)
    per_cell = f"{a.rounds} round{'s' if a.rounds != 1 else ''} a cell"
    # The rounds kept, not those asked for: a failed run is no round.
    kept = [c.get("rounds") or 0 for c in cells.values()]
    if kept and (min(kept) != a.rounds or max(kept) != a.rounds):
        per_cell += (f" asked, {min(kept)} to {max(kept)} kept (a failed run is no round: "
                     "summary.md's rounds column)" if min(kept) != max(kept)
                     else f" asked, {kept[0]} kept (a failed run is no round)")
    lines = [f"What this sweep found ({getattr(a, 'machine', 'machine unknown')}; "
             f"{per_cell}; permutation tests over the rounds; its {m} "
             f"verdicts held together to a {st.ALPHA:.0%} false discovery rate "
             f"(Benjamini-Hochberg: where nothing differs, a {st.ALPHA:.0%} chance of any "
             f"verdict at all), so each is judged at {alpha:.4g} and its interval is "
             f"{st.confidence(alpha)}):"]
    missing = []
    for s in a.scenarios:
        ran = [p for p in policies if cells.get((p, s), {}).get("rounds")]
        if not ran:
            lines.append(f"{s}: nothing measured (no policy completed a round)")
            continue
        lines.append(f"{s}: " + _lowest(inputlat, cells, policies, s, "p50", reference, alpha))
        lines.append(f"{s}: " + _lowest(inputlat, cells, policies, s, "p99", reference, alpha))
        attr = _attribution_line(cells, policies, s)
        if attr:
            lines.append(attr)
    hog = next((s for s in ("hog", "load+hog") if s in a.scenarios), None)
    if hog:
        lines.append(_idle_waste(inputlat, cells, hog, alpha))
    else:
        missing.append("the JS hog, its canary stall, its timeouts and the idle waste of "
                       "throttling: no hog scenario in this sweep (--scenarios)")
    for p, why in cannot.items():
        missing.append(f"{p}: cannot run here ({why})")
    for (p, s), c in cells.items():
        if not c.get("rounds") and p not in cannot:
            missing.append(f"{p} under {s}: no round succeeded (see the notes of summary.md)")
    # A hop a cell's reports lack: no bar in the hops chart, not a 0 one;
    # named as the other cells' reports name it.
    names = {k: n for c in cells.values() for k, n in (c.get("hop_names") or {}).items()}
    for (p, s), c in cells.items():
        gaps = c.get("hop_gaps") or {}
        if c.get("rounds") and gaps:
            hops = ", ".join(f"{k}" + (f" ({printable(names[k])})" if k in names else "")
                             for k in sorted(gaps))
            n = sorted(set(gaps.values()))
            missing.append(f"hop{'s' if len(gaps) > 1 else ''} {hops} of {p} under {s}: not in "
                           f"{' or '.join(map(str, n))} of its {c['rounds']} rounds' reports (the "
                           "hops chart draws no bar for it, and its bars add up to less than "
                           "the mean)")
    # Only where a swept policy asked for them and its runs said they were
    # not applied (a kernel without a fair server cannot run such a policy
    # at all: that is in `cannot` above).
    for p, why in sorted(getattr(a, "fair_server_unapplied", {}).items()):
        missing.append(f"fair-server settings of {p}: not applied here ({why}); "
                       "it ran with the values in force")
    per_round = min((c.get("events_per_round") or 0 for c in cells.values() if c.get("rounds")),
                    default=0)
    need = next((n for s in a.scenarios if (n := _min_events(cells, policies, s, "p99"))), None)
    if per_round and need and per_round < need:
        missing.append(f"p99 verdicts: a round's p99 needs {need:.0f} measured events, these "
                       f"rounds have {per_round} (run without --quick, or with --events "
                       f"{need:.0f})")
    off = sum(c.get("work_off_rounds") or 0 for c in cells.values())
    if off:
        total = sum(c.get("rounds") or 0 for c in cells.values())
        missing.append(f"a clean CPU in {off} of {total} rounds: a handler's measured work was more "
                       "than 10% off its configured work (under --work-model loops, the host ran "
                       "the CPU at another speed than at calibration; each round's work: warning "
                       "says by how much); kept, and counted in the 'work off' column")
    # By the rounds each cell kept: a cell of 1-3 has no verdict at 5%.
    few = [(p, s, c["rounds"]) for (p, s), c in cells.items() if 0 < (c.get("rounds") or 0) < 4]
    if few and len(few) == sum(1 for c in cells.values() if c.get("rounds")):
        n = sorted({k for _, _, k in few})
        missing.append(f"every verdict: {' or '.join(map(str, n))} round"
                       f"{'s' if n != [1] else ''} a cell; the permutation test needs 4 "
                       "or more a side to reach 5%")
    else:
        for p, s, k in few:
            missing.append(f"the verdicts on {p} under {s}: {k} round{'s' if k != 1 else ''}; "
                           "the permutation test needs 4 or more a side to reach 5%")
    if missing:
        lines.append("Not measured here: " + "; ".join(missing))
    if hog:
        lines += _hog_lines(cells, policies, hog)
    return lines
