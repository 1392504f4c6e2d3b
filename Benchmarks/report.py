"""The machine a run happened on, the results table, and the JSON files."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any


def machine(binary: Path, build_config: str) -> dict[str, Any]:
    """What the figures depend on: they are only comparable on the same machine and build."""
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {
        "cores": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
        "build_config": build_config, "binary": str(binary),
    }


def write_results(results: Mapping[str, Any], out_dir: Path, now: datetime) -> Path:
    """bench-<UTC timestamp>.json, and the same as latest.json."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=2) + "\n"
    path = out_dir / f"bench-{now.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(text)
    (out_dir / "latest.json").write_text(text)
    return path


def _number(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.{digits}f}"


def _met(met: bool | None) -> str:
    return "" if met is None else ("yes" if met else "NO")


def table(results: Mapping[str, Any]) -> str:
    """Every figure of `results` (as written to JSON) as text."""
    box = results["machine"]
    settings = results["settings"]
    es256 = results["es256"]
    lines = [
        f"Fieldpass benchmark, {results['mode']} mode, {results['date']}",
        f"Machine: {box['cores']} cores, {box['cpu_model']}, Linux {box['kernel']}; "
        f"build: {box['build_config']} ({box['binary']})",
        f"wrk: {settings['wrk_seconds']:g} s per figure, {settings['connections']} connections, "
        f"{settings['threads']} threads in all (one wrk per instance, the load split evenly)",
        f"ES256 on one core (openssl speed, {settings['openssl_seconds']:g} s): "
        f"sign {_number(es256['sign_per_s'], 0)}/s, verify {_number(es256['verify_per_s'], 0)}/s",
    ]
    header = (
        f"  {'figure':<22}{'req/s':>11}{'p50 ms':>10}{'p99 ms':>10}{'errors':>8}  {'ratio':>6}  {'goal':<32}{'met':>4}"
        f"  {'cpu ms: fp':>10}{'pg':>7}{'ops/cpu-s':>11}"
    )
    for store, figures in results["stores"].items():
        seeded = figures["seed"]
        lines += [
            "",
            f"{store}: {figures['instances']} instance(s); seeded first with {seeded['people']:,} people and "
            f"{seeded['refresh_rotations']:,} refresh rotations"
            + (", then VACUUM (ANALYZE)" if seeded["vacuum_analyze"] else "") + f" ({seeded['seconds']:g} s)",
            header,
        ]
        for name, row in figures["http"].items():
            ratio = _number(row.get("ratio"), 2) if row.get("ratio") is not None else ""
            cpu = row.get("cpu", {})
            lines.append(
                f"  {name:<22}{_number(row['req_s']):>11}{_number(row['p50_ms'], 2):>10}"
                f"{_number(row['p99_ms'], 2):>10}{row['errors']:>8}  {ratio:>6}  {row.get('goal', ''):<32}"
                f"{_met(row.get('met')):>4}"
                + (f"  {_number(cpu['fieldpass_ms'], 3):>10}{_number(cpu['postgres_ms'], 3):>7}{_number(cpu['ops_per_cpu_s']):>11}" if cpu else "")
            )
        lines += _other_lines(figures["other"])
        lines += _push_lines(figures["sockets"]["push"])
    if results.get("comparison"):
        lines += ["", "What scaling out costs in CPU (both stores, this run)"] + _other_lines(results["comparison"])
    return "\n".join(lines)


def _other_lines(rows: list[Mapping[str, Any]]) -> list[str]:
    lines = []
    for row in rows:
        # Small figures (CPU milliseconds, ratios) need their third digit.
        digits = 3 if isinstance(row["value"], float) and abs(row["value"]) < 10 else 1
        value = f"{_number(row['value'], digits)} {row['unit']}".rstrip()
        lines.append(f"  {row['figure']:<43}{value:>18}  {row['goal']:<32}{_met(row['met']):>4}")
    return lines


def _push_lines(push: Mapping[str, Any]) -> list[str]:
    """Each rung of the push's ladder, then the pushes at 50 % and 90 % of the sustained rate."""
    criteria = push["criteria"]
    lines = [
        "",
        f"  push ladder, {push['rung_seconds']:g} s a rung with fresh sessions: a rung holds with every callback answered,",
        f"  every frame delivered, >= {100 * criteria['send_share']:g} % of the rate sent, p99 < "
        f"{criteria['p99_ceiling_ms']:g} ms, and growth < {criteria['queue_growth_ms']:g} ms",
        "  (growth: median of the last quarter of callbacks sent minus that of the first; client cpu: of one core)",
        f"  {'push':<10}{'rate/s':>8}{'sent/s':>9}{'events':>8}{'errors':>8}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'growth ms':>11}{'client cpu':>12}  result",
    ]
    runs = [(f"rung {index + 1}", rung) for index, rung in enumerate(push["ladder"])]
    runs += [(label, push[name]) for name, label in (("half", "50 %"), ("ninety", "90 %")) if push.get(name)]
    for label, run in runs:
        result = "holds" if run["holds"] else f"fails ({run['limit']}): " + "; ".join(run["reasons"])
        lines.append(
            f"  {label:<10}{_number(run['rate_target'], 0):>8}{_number(run['rate_sent'], 0):>9}{run['events']:>8}"
            f"{run['errors']:>8}{_number(run['p50_after_sent_ms'], 2):>9}{_number(run['p99_after_sent_ms'], 2):>9}"
            f"{_number(run['growth_ms'], 1):>11}{_number(run['client_cpu'], 2):>12}  {result}"
        )
    return lines
