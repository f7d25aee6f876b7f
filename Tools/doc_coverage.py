#!/usr/bin/env python3
"""Fails (exit 1) when a public symbol of a symbol graph has no doc comment.

Symbols that implement a protocol requirement inherit its documentation, and the members
Swift synthesises (hashValue, hash(into:), init(rawValue:), rawValue) are left out.
Usage: Tools/doc_coverage.py MODULE.symbols.json
"""
import json, sys

graph = json.load(open(sys.argv[1]))
inherits = {r["source"] for r in graph["relationships"]
            if "sourceOrigin" in r or r["kind"] == "defaultImplementationOf"}
synthesised = {"hashValue", "hash(into:)", "init(rawValue:)", "rawValue"}
missing = []
for s in graph["symbols"]:
    if s.get("accessLevel") not in ("public", "open") or "docComment" in s:
        continue
    if s["identifier"]["precise"] in inherits or s["pathComponents"][-1] in synthesised:
        continue
    where = s.get("location", {})
    missing.append(f"{where.get('uri', '?').split('/Sources/')[-1]}:{where.get('position', {}).get('line', 0) + 1}: "
                   + ".".join(s["pathComponents"]))
for m in sorted(missing):
    print(f"docs: no doc comment: {m}", file=sys.stderr)
sys.exit(1 if missing else 0)
