# SPDX-License-Identifier: GPL-2.0-only
"""Mutants generated from the C source, for scripts/mutate --generate.

A small C tokenizer finds every place in a function body where a one-token
bug of a common kind fits, so nobody chooses which lines are mutated:

  relational   <  <=  >  >=  ==  !=   each to its boundary twin and to its
               negation (< to <= and >=, == to !=, ...)
  arithmetic   + -  * /  and += -= *= /=, each to its partner; % to *
  logical      && and || to each other
  constant     a number n to n+1, n-1, 2n and n/2 (duplicates dropped;
               not "return -1" to "return -2": callers test for non-zero;
               not a hash's 64-bit hex constant)
  extreme      fmin/fmax and min/max swapped; stats_median() and
               stats_median_sorted() to the smallest or the largest sample
  swapped      a / b to b / a (a ratio upside down), when both operands are
               simple: a name, a number, a call, an index or member chain,
               a parenthesised group, each with its cast
  dropped      a + b and a - b to a (a term left out), b simple as above,
               not a number (n to 0 is a constant mutant already) and not
               bound tighter to what follows it

Comments, strings, character constants, preprocessor lines, array sizes in
declarations, case labels, and everything outside function bodies (tables,
enums, initialisers of globals) are left alone. A mutant is (file, byte
offset, length, replacement): it is applied to the exact token it names.
"""
import bisect
import os
import re

# The numeric code the issue names: the model, the report's statistics,
# claims, verdicts, predictions and fleet table, lib's statistics, the
# results files and journal, the harness's results, compare, and each
# family's variants and verify.
SOURCES = [
    "model/*.c",
    "report/analysis.c", "report/claims.c", "report/claim_text.c", "report/verdict.c",
    "report/prediction.c", "report/seed_prediction.c", "report/fleet.c",
    "report/usl.c", "report/host_modes.c", "report/sweeps.c", "report/cases.c",
    "report/summary.c", "report/run_checks.c",
    "lib/stats.c", "lib/splitmix64.h",
    "resultfile/*.c",
    "bench/suite.c", "bench/bench_case.c", "bench/counters_sets.c", "bench/counters_open.c",
    "bench/counters_thread.c", "bench/counters_status.c", "bench/latency.c",
    "cli/cmd_compare.c", "cli/cmd_model.c",
    "kernels/has_pinned.c", "kernels/counter.c", "kernels/last_nidpid.c",
    "kernels/false_sharing.c", "kernels/pingpong.c", "kernels/longterm_check.c",
    "kernels/gup/*.c", "kernels/setting.c", "kernels/drive.c",
    # how every number is printed: significant digits, ratios, p-values
    "lib/format.c",
]

# The meson tests that run each folder's (or file's) code and check what it
# computes: the most specific prefix wins. A mutant runs only these, so a
# sample is minutes, not hours; a survivor's "should have been caught by"
# is this list.
TESTS = [
    ("model/", ["report_fence", "model", "model_cli", "cli_model", "report", "no_leaks",
                "suite:model"]),
    ("cli/cmd_model.c", ["report_fence", "model_cli", "cli_model", "no_leaks", "suite:model"]),
    ("report/claims.c", ["report_fence", "claims", "claims_edges", "report_oom", "report",
                         "suite:report"]),
    ("report/claim_text.c", ["report_fence", "claims", "claims_edges", "report", "suite:report"]),
    ("report/fleet.c", ["report_fence", "fleet_report", "report", "suite:report"]),
    ("report/seed_prediction.c", ["report_fence", "prediction_table", "report", "claims",
                                  "report_numbers", "suite:report"]),
    ("report/", ["report_fence", "report", "claims", "report_numbers", "suite:report"]),
    ("lib/splitmix64.h", ["stats_draws", "has_pinned_verify", "longterm", "kernels", "behaviour",
                          "suite:kernels"]),
    ("lib/stats.c", ["report_fence", "stats_draws", "stats_bounds", "stats_oracle", "stats",
                     "claims", "report", "suite:report"]),
    ("resultfile/journal.c", ["report_fence", "journal_syncs", "journal", "end_to_end"]),
    ("resultfile/aggregates.c", ["report_fence", "aggregates", "result_rows", "report",
                                 "end_to_end", "suite:report"]),
    ("resultfile/", ["report_fence", "results_context", "read_bounds", "journal", "report",
                     "end_to_end", "suite:report"]),
    # bench/counters_*.c: the counters' four files share their tests.
    ("bench/counters_", ["core_pmu", "counter_select", "counter_groups", "counter_coherence",
                         "counter_math", "counter_events", "counter_status", "counters",
                         "counters_cli", "report", "suite:counters"]),
    ("bench/latency.c", ["latency_pairs", "latency_clock", "topo", "cli_topo", "cli_model",
                         "units"]),
    ("bench/suite.c", ["uint_list", "suite_oom", "suite_plan", "gbench_shim", "end_to_end",
                       "cli_params", "cli_topo", "units", "cli_behaviour"]),
    ("bench/bench_case.c", ["case_home", "watchdog", "home_rows", "result_rows", "gbench_shim",
                            "thread_spread", "end_to_end", "cli_params", "units", "cli_behaviour"]),
    ("bench/", ["gbench_shim", "timing", "units", "end_to_end"]),
    ("cli/cmd_compare.c", ["report_fence", "compare_status", "compare_modes", "cli_behaviour",
                           "units", "no_leaks", "end_to_end"]),
    ("kernels/gup/", ["gup", "gup_writer", "family_oom", "gup_cli", "suite:gup"]),
    ("kernels/", ["kernels", "behaviour", "catalogue", "kernel_oom", "family_oom",
                  "suite:kernels"]),
    ("kernels/has_pinned.c", ["has_pinned_verify", "kernels", "behaviour", "catalogue",
                              "kernel_oom", "family_oom", "suite:kernels"]),
    ("report/verdict.c", ["report_fence", "claims", "claims_edges", "report", "report_numbers",
                          "suite:report"]),
    ("report/host_modes.c", ["report_fence", "report_units", "report", "claims", "report_numbers",
                             "suite:report"]),
    ("report/analysis.c", ["report_fence", "report_units", "report_oom", "report", "claims",
                           "report_numbers", "suite:report"]),
    ("report/cases.c", ["report_fence", "report_units", "report_oom", "report", "claims",
                        "report_numbers", "suite:report"]),
    ("report/run_checks.c", ["report_fence", "report_oracle", "report", "claims", "report_numbers",
                             "suite:report"]),
    ("kernels/gup/gup_family.c", ["kernel_oracles", "catalogue", "gup", "family_oom", "suite:gup"]),
    ("kernels/gup/gup_family_verify.c", ["kernel_oracles", "catalogue", "gup", "suite:gup"]),
    ("resultfile/results_read.c", ["report_fence", "results_reader", "results_oom",
                                   "results_interrupted", "compare_modes", "results_context",
                                   "read_bounds", "journal", "report", "end_to_end",
                                   "suite:report"]),
    ("resultfile/run_context_read.c", ["report_fence", "context_fields", "results_context",
                                       "read_bounds", "journal", "report", "end_to_end",
                                       "suite:report"]),
    ("resultfile/latency_map.c", ["report_fence", "latency_map", "results_oom", "results_context",
                                  "read_bounds", "journal", "report", "end_to_end",
                                  "suite:report"]),
    ("resultfile/profile_read.c", ["report_fence", "profile_fields", "results_context",
                                   "read_bounds", "journal", "report", "end_to_end",
                                   "suite:report"]),
    ("resultfile/results.c", ["report_fence", "row_facts", "row_view", "result_rows", "home_rows",
                              "results_context", "read_bounds", "cli_topo", "journal", "report",
                              "end_to_end", "suite:report"]),
    ("resultfile/published_read.c", ["report_fence", "published_fields", "model_published",
                                     "results_context", "read_bounds", "journal", "report",
                                     "end_to_end", "suite:report"]),
    ("lib/format.c", ["report_fence", "format_edges", "stats", "claims_edges", "report",
                      "suite:report"]),
    ("report/usl.c", ["report_fence", "report_units", "stats", "report", "claims", "report_numbers",
                      "suite:report"]),
    ("report/sweeps.c", ["report_fence", "report_units", "report_oom", "report", "claims",
                         "report_numbers", "suite:report"]),
    ("report/summary.c", ["report_fence", "report_oracle", "report", "claims", "report_numbers",
                          "suite:report"]),
    ("kernels/setting.c", ["setting", "claims", "claims_edges", "report_units", "model_cli",
                           "cli_params", "suite_plan", "bad inputs", "report",
                           "suite:report"]),
    # the shares' closed forms first
    ("report/prediction.c", ["report_fence", "model_shares", "report_units", "prediction_table",
                             "report", "claims", "report_numbers", "suite:report"]),
    # results_read.c's parts share its tests
    ("resultfile/reader.c", ["report_fence", "results_reader", "compare_modes", "results_context",
                             "read_bounds", "journal", "report", "end_to_end", "suite:report"]),
    ("resultfile/results_strings.c", ["report_fence", "results_reader", "results_oom",
                                      "compare_modes", "results_context", "read_bounds", "journal",
                                      "report", "end_to_end", "suite:report"]),
    ("resultfile/results_row.c", ["report_fence", "results_reader", "results_oom", "compare_modes",
                                  "results_context", "read_bounds", "journal", "report",
                                  "end_to_end", "suite:report"]),
    ("resultfile/results_foreign.c", ["report_fence", "results_reader", "compare_modes",
                                      "results_context", "read_bounds", "journal", "report",
                                      "end_to_end", "suite:report"]),
    ("kernels/longterm_check.c", ["longterm_oom", "longterm_clock", "kernel_oom", "family_oom",
                                  "longterm", "kernels", "behaviour", "catalogue",
                                  "suite:kernels"]),
    ("kernels/drive.c", ["model_cli", "latency_clock", "kernel_oracles", "hooked writes", "kernels",
                         "contract", "cli_model", "suite:kernels"]),
]


def tests_for(rel):
    best = max((p for p, _ in TESTS if rel.startswith(p)), key=len, default=None)
    return dict(TESTS)[best] if best else []


TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])*')
  | (?P<number>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[uUlLfF]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%]=|[-+*/%<>=!&|^~?:;,.(){}\[\]])
""", re.X | re.S)

KEYWORDS = {"return", "sizeof", "case", "else", "do", "if", "while", "for",
            "switch", "goto", "default", "break", "continue", "_Alignof", "alignof"}
TYPES = {"void", "char", "short", "int", "long", "float", "double", "signed",
         "unsigned", "_Bool", "bool", "const", "volatile", "static", "struct",
         "union", "enum", "register", "restrict", "_Atomic", "inline", "extern"}

REL = {"<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"],
       "==": ["!="], "!=": ["=="]}
ARITH = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["*"],
         "+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="]}
LOGIC = {"&&": ["||"], "||": ["&&"]}
EXTREME = {"fmin": "fmax", "fmax": "fmin", "min": "max", "max": "min",
           "fminl": "fmaxl", "fmaxl": "fminl"}
MEDIANS = ("stats_median", "stats_median_sorted")

# stats_median() mutated into the smallest or largest sample: the helpers
# are put in front of the file, and "#line 1" keeps every line number.
EXTREME_HELPERS = """#include <stddef.h>
static inline double mutant_extreme_(const double *v, size_t n, int largest)
{
	double m = n ? v[0] : 0;
	for (size_t i = 1; i < n; i++)
		if (largest ? v[i] > m : v[i] < m)
			m = v[i];
	return m;
}
#line 1
"""


def tokenize(text):
    """(kind, text, offset) for every token but white space and comments;
    preprocessor lines (with their continuations) are dropped whole."""
    out, pos, bol = [], 0, True
    while pos < len(text):
        if bol:
            m = re.match(r"[ \t]*#(?:[^\n\\]|\\.)*", text[pos:], re.S)
            if m:
                pos += m.end()
                continue
        m = TOKEN.match(text, pos)
        if not m:
            pos += 1
            continue
        kind = m.lastgroup
        if kind == "ws":
            bol = "\n" in m.group()
        elif kind == "comment":
            bol = False
        else:
            bol = False
            out.append((kind, m.group(), pos))
        pos = m.end()
    return out


def is_type(tok):
    return tok[0] == "ident" and (tok[1] in TYPES or tok[1].endswith("_t"))


def is_operand_end(tok):
    """Could this token end an operand, so that what follows is binary?"""
    kind, text, _ = tok
    if kind == "number":
        return True
    if kind == "ident":
        return text not in KEYWORDS and not is_type(tok)
    return text in (")", "]")


def function_bodies(toks):
    """Indices of tokens inside a function body: a top-level '{' after ')'."""
    inside, depth, in_fn = set(), 0, False
    for i, (kind, text, _) in enumerate(toks):
        if text == "{":
            if depth == 0:
                j = i - 1
                while j >= 0 and toks[j][0] == "ident" and toks[j][1] in ("const",):
                    j -= 1
                in_fn = j >= 0 and toks[j][1] == ")"
            depth += 1
        elif text == "}":
            depth -= 1
        elif in_fn and depth > 0:
            inside.add(i)
    return inside


def numbers_from(text):
    """Replacements for a numeric constant: n+1, n-1, 2n, n/2."""
    m = re.match(r"(.*?)([uUlLfF]*)$", text)
    body, suffix = m.group(1), m.group(2)
    is_float = bool(re.search(r"[.eE]", body)) and not body.lower().startswith("0x")
    try:
        value = float(body) if is_float else int(body, 0)
    except ValueError:
        return []
    if is_float:
        cands = [value + 1, value - 1, value * 2, value / 2]
        fmt = lambda v: repr(float(v))
    else:
        cands = [value + 1, value - 1, value * 2, value // 2]
        fmt = str
    seen, out = {value}, []
    for v in cands:
        if v in seen or (not is_float and v < 0) or (is_float and v < 0 and value >= 0 and "u" in suffix.lower()):
            continue
        seen.add(v)
        s = fmt(v)
        if v < 0:
            s = "(" + s + ")"
        out.append(s + (suffix if not s.endswith(")") else ""))
    return out


def in_declared_array_size(toks, i):
    """Is token i inside '[...]' of a declaration (char buf[64])? A
    declaration's statement starts with a type, and its sizes come
    before any '='."""
    depth, j = 0, i - 1
    while j >= 0:
        t = toks[j][1]
        if t == "]":
            depth += 1
        elif t == "[":
            if depth == 0:
                break
            depth -= 1
        elif t in (";", "{", "}") and depth == 0:
            return False
        j -= 1
    k = j
    while k >= 0 and toks[k][1] not in (";", "{", "}"):
        if toks[k][1] == "=":
            return False
        k -= 1
    return k + 1 < len(toks) and is_type(toks[k + 1])


def generate(top, files):
    """Every mutant of the files (paths relative to top), in a fixed order."""
    mutants = []
    for rel in files:
        with open(os.path.join(top, rel), encoding="utf-8") as f:
            text = f.read()
        toks = tokenize(text)
        inside = function_bodies(toks)
        fn_of = names_of_functions(toks)
        line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

        def add(i, into, kind, length=None, prefix=""):
            off = toks[i][2]
            line = bisect.bisect_right(line_starts, off)
            orig = toks[i][1] if length is None else text[off:off + length]
            mutants.append({
                "file": rel, "offset": off, "length": len(orig), "into": into,
                "prefix": prefix, "line": line, "function": fn_of.get(i, "?"),
                "kind": kind,
                "title": f"{kind}: '{orig}' -> '{into}' in {fn_of.get(i, '?')}()",
                "where": f"{rel}:{line}",
                "tests": ", ".join(tests_for(rel)),
            })

        def span(first, last):
            return text[toks[first][2]:toks[last][2] + len(toks[last][1])]

        def swap_ratio(i):
            """a / b to b / a, both operands simple."""
            left, right = operand_before(toks, i - 1), operand_after(toks, i + 1)
            if not left or not right:
                return
            a, b = span(*left), span(*right)
            # one line, so that its key is one line; not an array's size
            if a == b or "\n" in text[toks[left[0]][2]:toks[right[1]][2]] or \
                    in_declared_array_size(toks, i):
                return
            length = toks[right[1]][2] + len(toks[right[1]][1]) - toks[left[0]][2]
            add(left[0], f"{b} / {a}", "swapped", length=length)

        def drop_term(i):
            """a + b (or a - b) to a: b simple, not a number, and not bound
            tighter to what follows it (a + b * c is left alone)."""
            right = operand_after(toks, i + 1)
            if not right or operand_before(toks, i - 1) is None:
                return
            after = toks[right[1] + 1][1] if right[1] + 1 < len(toks) else ";"
            # a number's term is the constant mutant n to 0 again
            if after in ("*", "/", "%") or toks[right[0]][0] == "number" or \
                    "\n" in text[toks[i][2]:toks[right[1]][2]] or in_declared_array_size(toks, i):
                return
            length = toks[right[1]][2] + len(toks[right[1]][1]) - toks[i][2]
            add(i, "", "dropped", length=length)

        for i, (kind, tok, off) in enumerate(toks):
            if i not in inside:
                continue
            prev = toks[i - 1] if i else ("op", ";", 0)
            nxt = toks[i + 1] if i + 1 < len(toks) else ("op", ";", 0)
            if kind == "op":
                if tok in REL and tok in ("<", ">") and (prev[1] == "#" or nxt[1] == "<"):
                    continue
                if tok in REL:
                    for into in REL[tok]:
                        add(i, into, "relational")
                elif tok in ARITH:
                    # Binary only: not unary minus, not a pointer's star.
                    if len(tok) == 1 and not is_operand_end(prev):
                        continue
                    if tok == "*" and prev[0] == "ident" and i >= 2 and \
                       toks[i - 2][1] in ("struct", "union", "enum", "const", "(", ",", ";", "{", "}"):
                        continue
                    for into in ARITH[tok]:
                        add(i, into, "arithmetic")
                    if tok == "/":
                        swap_ratio(i)
                    elif tok in ("+", "-"):
                        drop_term(i)
                elif tok in LOGIC:
                    for into in LOGIC[tok]:
                        add(i, into, "logical")
            elif kind == "number":
                if prev[1] == "case" or in_declared_array_size(toks, i):
                    continue
                # A hash's or a generator's 64-bit constant (FNV, splitmix):
                # another value is another hash, not a wrong number.
                if re.match(r"0[xX][0-9a-fA-F]{9,}", tok):
                    continue
                for into in numbers_from(tok):
                    # "return -1" to "return -2" is the same failure to
                    # callers that test for non-zero, as this code's do;
                    # "return -0", a success, stays.
                    if prev[1] == "-" and toks[i - 2][1] == "return" and \
                       nxt[1] == ";" and tok == "1" and into == "2":
                        continue
                    add(i, into, "constant")
            elif kind == "ident" and nxt[1] == "(":
                if tok in EXTREME:
                    add(i, EXTREME[tok], "extreme")
                elif tok in MEDIANS and prev[1] not in TYPES and not is_type(prev):
                    close = group_end(toks, i + 1)
                    if close is None:
                        continue
                    args = text[toks[i + 1][2] + 1:toks[close][2]]
                    length = toks[close][2] + 1 - off
                    for largest, name in ((0, "min"), (1, "max")):
                        add(i, f"mutant_extreme_({args}, {largest})", "extreme",
                            length=length, prefix=EXTREME_HELPERS)
                        mutants[-1]["title"] = f"extreme: {tok}() -> {name}imum in {fn_of.get(i, '?')}()"
    return mutants


def group_end(toks, i):
    """Index of the ')' or ']' that closes the '(' or '[' at i, or None."""
    opening = toks[i][1]
    closing = ")" if opening == "(" else "]"
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][1] == opening:
            depth += 1
        elif toks[j][1] == closing:
            depth -= 1
            if depth == 0:
                return j
    return None


def group_start(toks, i):
    """Index of the '(' or '[' that opens the ')' or ']' at i, or None."""
    closing = toks[i][1]
    opening = "(" if closing == ")" else "["
    depth = 0
    for j in range(i, -1, -1):
        if toks[j][1] == closing:
            depth += 1
        elif toks[j][1] == opening:
            depth -= 1
            if depth == 0:
                return j
    return None


def is_cast(toks, start, end):
    """Is the group toks[start..end], '(' to ')', a cast: a type inside?"""
    return end > start + 1 and is_type(toks[start + 1]) and \
        all(is_type(t) or t[1] == "*" for t in toks[start + 1:end])


def operand_after(toks, i):
    """(first, last) token indices of a simple operand starting at i, with a
    cast in front of it, or None."""
    first = i
    if i < len(toks) and toks[i][1] == "(":
        end = group_end(toks, i)
        if end is None:
            return None
        if is_cast(toks, i, end):
            inner = operand_after(toks, end + 1)
            return (first, inner[1]) if inner else None
        last = end
    elif i < len(toks) and toks[i][0] in ("ident", "number") and \
            toks[i][1] not in KEYWORDS and not is_type(toks[i]):
        last = i
    else:
        return None
    while last + 1 < len(toks):
        nxt = toks[last + 1][1]
        if nxt in ("(", "["):
            end = group_end(toks, last + 1)
            if end is None:
                return None
            last = end
        elif nxt in (".", "->") and last + 2 < len(toks) and toks[last + 2][0] == "ident":
            last += 2
        elif nxt in ("++", "--"):
            return None
        else:
            break
    return first, last


def operand_before(toks, i):
    """(first, last) token indices of a simple operand ending at i, with a
    cast in front of it, or None (a unary operator before it: None)."""
    last, j = i, i
    while True:
        if toks[j][1] in (")", "]"):
            start = group_start(toks, j)
            if start is None:
                return None
            if toks[j][1] == ")" and start > 0 and toks[start - 1][0] == "ident" and \
                    toks[start - 1][1] not in KEYWORDS:
                j = start - 1          # a call
            elif toks[j][1] == "]":
                j = start - 1          # an index: what it indexes comes before
                if j < 0:
                    return None
                continue
            else:
                j = start              # a parenthesised group
        elif toks[j][0] in ("ident", "number") and toks[j][1] not in KEYWORDS and \
                not is_type(toks[j]):
            pass
        else:
            return None
        if j >= 2 and toks[j - 1][1] in (".", "->"):
            j -= 2
            continue
        break
    if j > 0 and toks[j - 1][1] == ")":
        start = group_start(toks, j - 1)
        if start is not None and is_cast(toks, start, j - 1):
            j = start
    if j > 0 and toks[j - 1][1] in ("-", "+", "!", "~", "*", "&") and \
            (j < 2 or not is_operand_end(toks[j - 2])):
        return None
    if j > 0 and toks[j - 1][1] in ("++", "--", "sizeof"):
        return None
    return j, last


def names_of_functions(toks):
    """Token index -> name of the function whose body holds it."""
    names, depth, current = {}, 0, None
    for i, (kind, text, _) in enumerate(toks):
        if text == "{":
            if depth == 0:
                current = None
                j = i - 1
                if j >= 0 and toks[j][1] == ")":
                    close_depth, k = 0, j
                    while k >= 0:
                        if toks[k][1] == ")":
                            close_depth += 1
                        elif toks[k][1] == "(":
                            close_depth -= 1
                            if close_depth == 0:
                                break
                        k -= 1
                    if k > 0 and toks[k - 1][0] == "ident":
                        current = toks[k - 1][1]
            depth += 1
        elif text == "}":
            depth -= 1
            if depth == 0:
                current = None
        elif current and depth > 0:
            names[i] = current
    return names


def apply(text, m):
    off, length = m["offset"], m["length"]
    return m.get("prefix", "") + text[:off] + m["into"] + text[off + length:]


def wilson(k, n, z=1.959963984540054):
    """The Wilson score interval for k successes in n trials (95%)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
