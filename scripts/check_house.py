#!/usr/bin/python3
"""Checks the architecture issue's three house rules over lib/ and cli/ (stdlib only).

  1. No source file (.hpp/.cpp) in lib/ or cli/ is over 600 lines.
  2. No function in lib/ is over 150 lines, counted from the first line of its signature to its
     closing brace. Functions are found with a brace-matching scan that skips comments, string
     and character literals (raw strings included) and preprocessor lines: a `{ ... }` block at
     namespace or class scope whose header has a `(` is a function body (lambdas, local classes
     and control blocks inside it count as part of it). Functions in cli/ are listed as notes.
  3. No upward include between layers: an `#include "powerzoo/<layer>/..."` names the file's own
     layer or a layer to its right in
       cli -> exp -> {rl, vec, io} -> tasks -> envs -> market -> {grid, devices, data} -> core
     (layers that share a rank don't include each other). The layer of a file is its top folder
     under lib/powerzoo/, however deep the file sits.
  4. No folder of lib/ holds more than 30 source files (.hpp and .cpp counted together).
  5. A layer that is split into rooms (sub-folders, ROOMS below) keeps its rooms in order: an
     include of the same layer names the file's own room or a room of lower rank (rooms of equal
     rank don't include each other; a layer's top-level files form the room named by the layer).
     Every sub-folder of a layer is a room of ROOMS, with its rank and one-line purpose.

Each file length, lib/ function, powerzoo include, folder and room is one check, and the room
table of docs/design.md §2 must list the rooms of ROOMS with the same rank and purpose. Every
violation is printed as file:line; the last line is "N passed, M failed". Exit code 1 on any
violation, 0 otherwise.

usage: scripts/check_house.py [ROOT]   (ROOT defaults to the repository holding this script)
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 150

# Layer -> rank: a layer may include its own layer or any layer of strictly lower rank.
LAYER_RANK = {
    "cli": 8,
    "exp": 7,
    "rl": 6, "vec": 6, "io": 6,
    "tasks": 5,
    "envs": 4,
    "market": 3,
    "grid": 2, "devices": 2, "data": 2,
    "core": 1,
}

MAX_FOLDER_SOURCES = 30

# Rooms of the layers split into sub-folders: "layer/room" (or "layer" for the layer's top-level
# files) -> (rank, one-line purpose). A room includes its own room or rooms of strictly lower rank
# of its layer. docs/design.md §2 shows the same table.
ROOMS = {
    # exp: spec -> run -> {eval, sweep, report} -> train -> bench
    "exp/spec": (1, "the experiment spec: keys, reading, migration of old layouts, and what it "
                    "builds (env, learner, data files)"),
    "exp/run": (2, "a run directory and what is written in it: layout, lock, checkpoints, "
                   "progress.csv, metric columns and levels"),
    "exp/eval": (3, "deterministic evaluation of a policy, the eval command, rollout action files "
                    "and episode pictures"),
    "exp/sweep": (3, "sweep expansion, the sweep manifest, SLURM job arrays and the local job pool"),
    "exp/report": (3, "result files read back (run, baseline and eval files) and summaries "
                      "over seeds (mean, IQM, bootstrap CI)"),
    "exp/train": (4, "the training loop, its progress line, and validate/keys (what a run checks "
                     "before it writes)"),
    "exp/bench": (5, "throughput measurements and the scoreboard of `powerzoo bench`"),
    # grid: {linalg, case} -> {dc, ac, dist} -> uc
    "grid/linalg": (1, "the linear solvers the flows factor with: dense LU and sparse KLU"),
    "grid/case": (1, "the Case: MATPOWER file reading, the per-process case cache and the "
                     "energized reading (bus types, islands)"),
    "grid/dc": (2, "DC physics: B matrices, PTDF flows, DC-PF report, DC-OPF on CLP, LODF and "
                   "the security-constrained DC-OPF"),
    "grid/ac": (2, "AC physics: the Ybus network, Newton-Raphson AC-PF on KLU, AC-OPF on Ipopt "
                   "and their reports"),
    "grid/dist": (2, "DistFlow on radial distribution feeders"),
    "grid/uc": (3, "unit-commitment dispatch: the merit order and its exact dual simplex over "
                   "PTDF line rows"),
    # envs: envs -> trans_grid
    "envs": (1, "the env contract, the env registry, episode windows, wrappers (penalty, Sauté), "
                "outages and forecasts, and the envs of one file pair each"),
    "envs/trans_grid": (2, "the transmission env: DC and AC physics, outages, its registry entry "
                           "and OPF baselines"),
    # rl: rl -> nn -> {ppo, sac} -> ippo
    "rl": (1, "the learner interface, the learner registry, configs and section-key binding"),
    "rl/nn": (2, "network pieces: MLP, Adam, normalizers, Beta and Gaussian policy math, the "
                 "xtensor kernels"),
    "rl/ppo": (3, "PPO and its Safe-RL variants: rollout, GAE, losses, Lagrangian duals, "
                  "registry entries"),
    "rl/sac": (3, "SAC: replay buffer, losses, state, registry entry"),
    "rl/ippo": (4, "IPPO: per-agent PPO on multi-agent envs, registry entries"),
}

SCOPE_KEYWORDS = ("namespace", "class", "struct", "union", "enum", "extern")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"powerzoo/(([^/"]+)/[^"]*)"')


def source_files(root):
    """Every .hpp/.cpp under lib/ and cli/, as paths relative to root, sorted."""
    out = []
    for top in ("lib", "cli"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith((".hpp", ".cpp")):
                    out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


def layer_of(rel):
    """The layer a file belongs to: "cli" for cli/, else the directory under lib/powerzoo/."""
    parts = rel.split(os.sep)
    if parts[0] == "cli":
        return "cli"
    if len(parts) >= 4 and parts[0] == "lib" and parts[1] == "powerzoo":
        return parts[2]
    return None


def room_of(path):
    """The room of a path under lib/powerzoo/ ("exp/spec/spec.hpp" -> "exp/spec"; a top-level
    file of a layer -> the layer), or None for a layer not split into rooms."""
    parts = path.split("/")
    layer = parts[0]
    if not any(r.split("/")[0] == layer for r in ROOMS):
        return None
    return "/".join(parts[:2]) if len(parts) > 2 else layer


def check_folders(root, check):
    """Source files per folder of lib/ (rule 4) and a ROOMS entry per room folder (rule 5)."""
    base = os.path.join(root, "lib", "powerzoo")
    for dirpath, _, names in os.walk(os.path.join(root, "lib")):
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        count = sum(1 for n in names if n.endswith((".hpp", ".cpp")))
        most = MAX_FOLDER_SOURCES
        check(count <= most, rel, f"folder holds {count} source files (max {most})")
        sub = os.path.relpath(dirpath, base).replace(os.sep, "/")
        if sub.startswith("..") or sub == ".":
            continue
        if "/" in sub:  # a room: layer/room (rooms hold no rooms)
            ok = sub in ROOMS and sub.count("/") == 1
            check(ok, rel, "room without a ROOMS entry (rank and purpose) in scripts/check_house.py")
        elif count and any(r.startswith(sub + "/") for r in ROOMS):
            check(sub in ROOMS, rel, "top-level files of a layer in rooms need a ROOMS entry")
    for room in ROOMS:
        check(os.path.isdir(os.path.join(base, room)), "scripts/check_house.py",
              f"ROOMS names {room}, which is no folder of lib/powerzoo/")


def check_design_table(root, check):
    """docs/design.md's room table (rows "| `room` | rank | purpose |") matches ROOMS."""
    path = os.path.join(root, "docs", "design.md")
    if not os.path.exists(path):
        return
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*`([a-z_/]+)`[^|]*\|\s*(\d+)\s*\|\s*(.*?)\s*\|\s*$", line)
            if m:
                rows[m.group(1)] = (int(m.group(2)), m.group(3).replace("`", ""))
    for room, (rank, purpose) in ROOMS.items():
        ok = rows.get(room) == (rank, purpose.replace("`", ""))
        check(ok, "docs/design.md", f"room table: {room} should read rank {rank}, '{purpose}' "
                                    f"(found {rows.get(room)})")
    for room in rows.keys() - ROOMS.keys():
        check(False, "docs/design.md", f"room table lists {room}, which ROOMS does not")


def strip_code(text):
    """The text with comments, literals and preprocessor lines blanked out; newlines are kept
    so that offsets still map to the same line numbers."""
    out = []
    i, n = 0, len(text)
    line_start = True  # only whitespace seen since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if line_start and c == "#":  # preprocessor directive, with backslash continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c in " \t\r":
            out.append(c)
            i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        # A quote after an alphanumeric is a digit separator (1'000), not a character literal.
        if c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j, n - 1) - i + 1))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def find_functions(code):
    """(name, first line, last line) of every function body at namespace or class scope."""
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, ch in enumerate(code):
        line_of[k] = line
        if ch == "\n":
            line += 1
    line_of[len(code)] = line

    functions = []

    def matching_brace(open_pos):
        depth = 0
        for k in range(open_pos, len(code)):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    return k
        return len(code) - 1

    def scan(begin, end):
        header_start = begin
        k = begin
        while k < end:
            ch = code[k]
            if ch in ";}":
                header_start = k + 1
            elif ch == "{":
                header = code[header_start:k]
                close = matching_brace(k)
                words = re.findall(r"[A-Za-z_]\w*", header)
                if any(w in SCOPE_KEYWORDS for w in words) and "(" not in header.split("=")[0]:
                    if "enum" not in words:
                        scan(k + 1, close)  # namespace, class or struct body: look inside
                elif "(" in header:  # a function (or namespace-scope lambda) body
                    label = re.match(r"\s*(?:(?:public|private|protected)\s*:)?\s*", header)
                    first = header_start + label.end()
                    name = re.findall(r"([~\w:<>]+)\s*\(", header)
                    functions.append((name[0] if name else "?", line_of[first], line_of[close]))
                k = close
                header_start = close + 1
            k += 1

    scan(0, len(code))
    return functions


def check_room_include(rel, target_path, where, check):
    """Rule 5 for one include of the file's own layer."""
    own = room_of("/".join(rel.split(os.sep)[2:]))
    to = room_of(target_path)
    if own is None or to is None or own == to:
        return
    if own not in ROOMS or to not in ROOMS:
        return  # reported by check_folders
    ok = ROOMS[to][0] < ROOMS[own][0]
    check(ok, where, f"room {own} (rank {ROOMS[own][0]}) includes room {to} "
                     f"(rank {ROOMS[to][0]}): rooms include only lower ranks")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    passed, failed = 0, 0
    notes = []

    def check(ok, where, message):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"{where}: {message}")

    check_folders(root, check)
    check_design_table(root, check)
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        check(lines <= MAX_FILE_LINES, f"{rel}:{lines}",
              f"file has {lines} lines (max {MAX_FILE_LINES})")

        for name, first, last in find_functions(strip_code(text)):
            length = last - first + 1
            if rel.startswith("lib" + os.sep):
                check(length <= MAX_FUNCTION_LINES, f"{rel}:{first}",
                      f"function {name} has {length} lines (max {MAX_FUNCTION_LINES})")
            elif length > MAX_FUNCTION_LINES:
                notes.append(f"{rel}:{first}: note: function {name} has {length} lines "
                             f"(cli/ is not checked)")

        layer = layer_of(rel)
        for number, source_line in enumerate(text.splitlines(), 1):
            m = INCLUDE_RE.match(source_line)
            if not m:
                continue
            target = m.group(2)
            where = f"{rel}:{number}"
            if layer not in LAYER_RANK:
                check(False, where, f"file is in no known layer ({layer})")
            elif target not in LAYER_RANK:
                check(False, where, f"includes unknown layer powerzoo/{target}/")
            else:
                ok = target == layer or LAYER_RANK[target] < LAYER_RANK[layer]
                check(ok, where, f"upward include: {layer} includes powerzoo/{target}/")
                if ok and target == layer and rel.startswith("lib" + os.sep):
                    check_room_include(rel, m.group(1), where, check)

    for note in notes:
        print(note)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
