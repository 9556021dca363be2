#!/usr/bin/env python3
"""Fails when a source file or a function in the given folders grows past its limit.

Usage: code_size.py --max-file-lines N --max-function-lines N FOLDER...

Functions are found by brace matching (comments, strings and character literals skipped):
a '{' that follows a closing ')' (or a constructor's initializer list) at namespace or
class level opens a function body. Lambdas inside a body count towards that body.
"""
import argparse
import pathlib
import re
import sys

SCOPE_OPENER = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;(){}]*$|\bextern\s+\"C\"\s*$")


def strip_code(text):
    """The text with comments, string and character literals blanked, line breaks kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, line count) of each function body in the file."""
    code = strip_code(path.read_text(encoding="utf-8", errors="replace"))
    found = []
    stack = []  # per open brace: "scope", "function" or "block"
    head = ""
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        if c == "{":
            inside_function = "function" in stack
            prefix = head.strip()
            if inside_function:
                stack.append("block")
            elif SCOPE_OPENER.search(prefix):
                stack.append("scope")
            elif re.search(r"\)\s*(const|override|final|noexcept|mutable|->\s*[\w:<>,\s*&]+|\s)*$", prefix) or re.search(
                r"\)\s*:\s*[^;]*$", prefix
            ):
                stack.append("function")
                name = re.search(r"([~\w:]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$", prefix)
                found.append([name.group(1) if name else prefix[-40:], line, None])
            else:
                stack.append("block")  # an initializer, an array, ...
            head = ""
        elif c == "}":
            kind = stack.pop() if stack else "block"
            if kind == "function" and "function" not in stack:
                found[-1][2] = line - found[-1][1] + 1
            head = ""
        elif c == ";":
            head = ""
        else:
            head += c
            if len(head) > 2000:
                head = head[-2000:]
    return [(name, first, count) for name, first, count in found if count is not None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-file-lines", type=int, required=True)
    parser.add_argument("--max-function-lines", type=int, required=True)
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    problems = []
    checked = 0
    for folder in args.folders:
        for path in sorted(pathlib.Path(folder).rglob("*")):
            if path.suffix not in (".cpp", ".h", ".inc"):
                continue
            checked += 1
            lines = path.read_text(encoding="utf-8", errors="replace").count("\n")
            if lines > args.max_file_lines:
                problems.append(f"{path}: {lines} lines (at most {args.max_file_lines})")
            for name, first, count in functions(path):
                if count > args.max_function_lines:
                    problems.append(f"{path}:{first}: {name} has {count} lines (at most {args.max_function_lines})")
    for problem in problems:
        print(problem)
    print(f"{checked} files checked, {len(problems)} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
