# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
"""Read an hpcprof database with HPCToolkit's own reader (hpctesttool,
on PYTHONPATH) and print the calling context tree with one metric's
inclusive ("execution") value, then one line per function asked for:
"FUNC VALUE", its inclusive value summed over the outermost contexts of
that function.

usage: python3 db_split.py DATABASE METRIC FUNC...
"""
import sys
from pathlib import Path

from hpctesttool.formats import from_path


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: db_split.py DATABASE METRIC FUNC...")
    db = from_path(Path(sys.argv[1]))
    metric, funcs = sys.argv[2], sys.argv[3:]
    ids = set()
    for m in db.meta.metrics.metrics:
        if m.name.split(" ")[0] != metric:
            continue
        for si in m.scope_insts:
            if si.scope.scope_name == "execution":
                ids.add(si.prop_metric_id)
    if not ids:
        names = sorted({m.name for m in db.meta.metrics.metrics})
        sys.exit(f"db_split: no metric {metric} in {sys.argv[1]} (has: {names})")
    summary = db.profile.profile_infos.profiles[0]
    totals = {f: 0.0 for f in funcs}

    def name_of(ctx):
        fn = getattr(ctx, "function", None)
        if fn is not None:
            return fn.name
        lt = getattr(ctx, "lexical_type", None)
        if lt is not None:
            return str(lt).split(".")[-1]
        return getattr(ctx, "pretty_name", None) or "?"

    def walk(ctx, depth, inside):
        value = sum(v for k, v in summary.values.get(ctx.ctx_id, {}).items() if k in ids)
        name = name_of(ctx)
        print(f"{'  ' * depth}{name} {value:.15g}")
        if name in totals and not inside:
            totals[name] += value
            inside = True
        for child in ctx.children:
            walk(child, depth + 1, inside)

    for ep in db.meta.context.entry_points:
        walk(ep, 0, False)
    for f in funcs:
        print(f"{f} {totals[f]:.15g}")


if __name__ == "__main__":
    main()
