#!/usr/bin/env python3
"""Fails when a relative link in the documentation does not resolve.

Usage: doc_links.py [ROOT]   (default: the current folder, the repository's root)

Reads ROOT/README.md and ROOT/docs/*.md. Every markdown link [text](target) and image
![alt](target), and every reference definition [label]: target, whose target is relative (not
http(s), mailto or an absolute path) must name an existing file or folder, relative to the page.
A target with a #fragment into a markdown file (or a bare #fragment, into the page itself) must
name one of that file's headings by its GitHub anchor: lowercase, spaces to '-', punctuation
other than '-' and '_' removed, a repeated heading numbered -1, -2, ...
Links inside code (fenced blocks, indented blocks, `spans`) are not links and are skipped.

Prints each broken link as FILE:LINE: broken link TARGET (why) and exits 1, or prints how many
links it checked and exits 0.
"""
import pathlib
import re
import sys
import urllib.parse

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:[^>]*\s)?(?:id|name)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def github_anchor(heading):
    """The anchor GitHub gives a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link counts by its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def prose_lines(text):
    """(line number, line) of the lines outside fenced and indented code blocks."""
    fence = None
    previous_blank = True
    in_indented = False
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip().strip(fence[0]):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        blank = not line.strip()
        # An indented code block starts after a blank line and runs while lines stay indented.
        if not blank and line.startswith(("    ", "\t")) and (previous_blank or in_indented):
            in_indented = True
            previous_blank = False
            continue
        if not blank:
            in_indented = False
        previous_blank = blank
        yield number, line


def anchors_of(path, cache):
    if path not in cache:
        text = path.read_text(encoding="utf-8")
        seen = {}
        anchors = set()
        for _, line in prose_lines(text):
            heading = HEADING.match(line)
            if heading:
                anchor = github_anchor(heading.group(2))
                count = seen.get(anchor, 0)
                seen[anchor] = count + 1
                anchors.add(anchor if count == 0 else f"{anchor}-{count}")
            for html in HTML_ANCHOR.finditer(line):
                anchors.add(html.group(1))
        cache[path] = anchors
    return cache[path]


def targets(text):
    """(line number, target) of every link in the page's prose."""
    for number, line in prose_lines(text):
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        prose = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for link in INLINE_LINK.finditer(prose):
            yield number, link.group(1)


def check(root, page, target, anchor_cache):
    """Why the link is broken, or None."""
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target:
        return "empty target"
    if EXTERNAL.match(target) or target.startswith("//"):
        return None  # http(s), mailto and other schemes
    if target.startswith("/"):
        return None  # absolute: not a relative link
    path_part, _, fragment = target.partition("#")
    path_part = urllib.parse.unquote(path_part.split("?", 1)[0])
    resolved = page if not path_part else (page.parent / path_part)
    if not resolved.exists():
        return "no such file"
    try:
        resolved.resolve().relative_to(root.resolve())
    except ValueError:
        return "outside the repository"
    if fragment:
        if resolved.is_dir() or resolved.suffix.lower() != ".md":
            return None  # a fragment into a non-markdown file is not checked
        fragment = urllib.parse.unquote(fragment)
        if fragment not in anchors_of(resolved, anchor_cache):
            return f"no heading with anchor #{fragment} in {resolved.relative_to(root).as_posix()}"
    return None


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        return 2
    root = pathlib.Path(argv[1] if len(argv) == 2 else ".")
    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    pages = [page for page in pages if page.is_file()]
    if not pages:
        print(f"doc_links.py: no README.md or docs/*.md under {root}", file=sys.stderr)
        return 1
    anchor_cache = {}
    broken = 0
    checked = 0
    for page in pages:
        name = page.relative_to(root).as_posix()
        for number, target in targets(page.read_text(encoding="utf-8")):
            checked += 1
            why = check(root, page, target, anchor_cache)
            if why:
                broken += 1
                print(f"{name}:{number}: broken link {target} ({why})")
    if broken:
        print(f"doc_links.py: {broken} of {checked} links broken in {len(pages)} pages")
        return 1
    print(f"doc_links.py: {checked} links in {len(pages)} pages resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
