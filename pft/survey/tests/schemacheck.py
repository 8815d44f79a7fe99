# SPDX-License-Identifier: GPL-2.0-or-later
# schemacheck.py - the subset of JSON Schema (2020-12) that the fault
# profile's schema file uses, to check profiles against the installed
# file itself (man/man5/pft-profile.schema.json).  A keyword outside the
# subset is an error, so that the schema cannot grow a rule this
# checker would skip.  python3 -m tests.schemacheck SCHEMA FILE...:
# exit 0 when each FILE validates, else one line per error.
#
# Copyright (C) 2026 The libfaultgen authors

import json
import os
import sys

SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "..", "man", "man5",
                           "pft-profile.schema.json")
NOTES = {"$schema", "$id", "title", "description", "$defs"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def type_ok(x, name):
    if name == "integer":
        return isinstance(x, int) and not isinstance(x, bool)
    if name == "number":
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    return isinstance(x, TYPES[name])


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError("$ref %s: only local references" % ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def check_number(x, s, where):
    out = []
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return out
    if "minimum" in s and x < s["minimum"]:
        out.append("%s: %r below %r" % (where, x, s["minimum"]))
    if "exclusiveMinimum" in s and x <= s["exclusiveMinimum"]:
        out.append("%s: %r not above %r" % (where, x, s["exclusiveMinimum"]))
    return out


def check_array(x, s, where, root):
    out = []
    if not isinstance(x, list):
        return out
    if "minItems" in s and len(x) < s["minItems"]:
        out.append("%s: fewer than %d items" % (where, s["minItems"]))
    if "maxItems" in s and len(x) > s["maxItems"]:
        out.append("%s: more than %d items" % (where, s["maxItems"]))
    pre = s.get("prefixItems", [])
    for i, item in enumerate(x):
        sub = pre[i] if i < len(pre) else s.get("items")
        if sub is not None:
            out += validate(item, sub, "%s[%d]" % (where, i), root)
    return out


def check_object(x, s, where, root):
    out = []
    if not isinstance(x, dict):
        return out
    for name in s.get("required", []):
        if name not in x:
            out.append("%s: '%s' missing" % (where, name))
    for name, sub in s.get("properties", {}).items():
        if name in x:
            out += validate(x[name], sub, "%s.%s" % (where, name), root)
    return out


KNOWN = NOTES | {"$ref", "type", "const", "enum", "minimum",
                 "exclusiveMinimum", "minItems", "maxItems", "prefixItems",
                 "items", "required", "properties"}


def validate(x, s, where="$", root=None):
    """The errors of x against schema s (a list of lines)."""
    root = s if root is None else root
    unknown = set(s) - KNOWN
    if unknown:
        raise ValueError("%s: keywords outside the subset: %s" %
                         (where, sorted(unknown)))
    if "$ref" in s:
        return validate(x, resolve(root, s["$ref"]), where, root)
    types = s.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(type_ok(x, t) for t in types):
            return ["%s: %r is not of type %s" % (where, x, "/".join(types))]
    if "const" in s and x != s["const"]:
        return ["%s: %r is not %r" % (where, x, s["const"])]
    if "enum" in s and x not in s["enum"]:
        return ["%s: %r is not one of %s" % (where, x, s["enum"])]
    return check_number(x, s, where) + check_array(x, s, where, root) + \
        check_object(x, s, where, root)


def load_schema(path=SCHEMA_FILE):
    with open(path) as f:
        return json.load(f)


def main(argv):
    schema = load_schema(argv[0])
    bad = 0
    for path in argv[1:]:
        with open(path) as f:
            errors = validate(json.load(f), schema)
        for e in errors:
            print("%s: %s" % (path, e))
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
