# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey.readprofile - a fault profile (pft-profile/1) read back for
# --compare and --plot: whatever is wrong with the file (truncated, not
# JSON, a later version, a member missing or of the wrong type, a row of
# faults or calls naming a thread or object the profile lacks, a row's
# last page below its first, a page beyond its object's size, an object
# not a whole number of pages) is one line naming the member, a
# ProfileError, as libfaultgen's reader (profile.c) refuses them.
# Unknown members are ignored (forward compatible within /1).
#
# Copyright (C) 2026 The libfaultgen authors

import json
import re

from . import kinds as K
from .calls import CALLS
from .base import SurveyError
from .profile import RANDOM, SCHEMA, SEQ, STRIDE

MAJOR = 1
SOURCES = (K.TRACEPOINTS, K.PAGE_FAULTS)
BACKINGS = ("anonymous", "shared-anonymous", "memfd", "sysv", "file",
            "hugetlb")
ROW_KINDS = K.EVENT_KINDS
WITHOUT_KINDS = (K.GUP, K.KERNEL_SIDE)
ORDERS = (SEQ, STRIDE, RANDOM)


class ProfileError(SurveyError):
    """A profile that cannot be read: its one line."""


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x):
    return (is_int(x) or isinstance(x, float)) and x == x and \
        x not in (float("inf"), float("-inf"))


# What each member holds: a test and its words.
NONNEG = (lambda x: is_int(x) and x >= 0, "an integer of 0 or more")
POSITIVE = (lambda x: is_int(x) and x >= 1, "an integer of 1 or more")
TIME = (lambda x: is_num(x) and x >= 0, "a number of 0 or more")
TIME_OR_NULL = (lambda x: x is None or is_num(x) and x >= 0,
                "a number of 0 or more, or null")
BOOL = (lambda x: isinstance(x, bool), "true or false")
STRING = (lambda x: isinstance(x, str), "a string")


def one_of(words):
    return (lambda x: x in words, "one of " + ", ".join(words))


TOP = (("recorder", STRING), ("source", one_of(SOURCES)),
       ("period", POSITIVE),
       ("bin_ms", (lambda x: is_num(x) and x > 0, "a number above 0")),
       ("duration_ms", TIME), ("page_size", POSITIVE), ("names", BOOL))
OBJECT = (("id", NONNEG), ("backing", one_of(BACKINGS)), ("size", NONNEG),
          ("writable", BOOL), ("thp", BOOL), ("huge_bytes", NONNEG),
          ("creator", NONNEG))
PROCESS = (("id", NONNEG),
           ("parent", (lambda x: x is None or is_int(x) and x >= 0,
                       "a process id or null")),
           ("fork_ms", TIME), ("exit_ms", TIME_OR_NULL),
           ("objects", (lambda x: isinstance(x, list) and
                        all(is_int(i) and i >= 0 for i in x),
                        "a list of object ids")))
THREAD = (("id", NONNEG), ("process", NONNEG), ("start_ms", TIME),
          ("end_ms", TIME_OR_NULL), ("main", BOOL))
ROW = (("thread", NONNEG), ("object", NONNEG), ("bin", NONNEG),
       ("nbins", POSITIVE), ("kind", one_of(ROW_KINDS)), ("count", NONNEG),
       ("first_page", NONNEG), ("last_page", NONNEG),
       ("order", one_of(ORDERS)), ("stride", NONNEG))
WITHOUT = (("thread", NONNEG), ("kind", one_of(WITHOUT_KINDS)),
           ("count", NONNEG))
CALL = (("thread", NONNEG),
        ("object", (lambda x: x is None or is_int(x) and x >= 0,
                    "an object id or null")),
        ("bin", NONNEG), ("call", one_of(CALLS)),
        ("arg", (lambda x: x is None or isinstance(x, str),
                 "a string or null")),
        ("count", NONNEG), ("first", NONNEG), ("last", NONNEG),
        ("pages", NONNEG))


def bad(path, member, what, value):
    text = json.dumps(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return ProfileError("%s: member '%s': %s expected, not %s" %
                        (path, member, what, text))


def check_members(path, where, obj, members):
    """obj (a dict) holds each of members with a value its test takes."""
    if not isinstance(obj, dict):
        raise bad(path, where, "an object", obj)
    for name, (test, what) in members:
        member = "%s.%s" % (where, name) if where else name
        if name not in obj:
            raise ProfileError("%s: member '%s' missing" % (path, member))
        if not test(obj[name]):
            raise bad(path, member, what, obj[name])


def check_row(path, where, row, members):
    """A row: a list of len(members) values, each its test's."""
    if not isinstance(row, list) or len(row) != len(members):
        raise bad(path, where, "a list of %d values (%s)" % (
            len(members), ", ".join(m[0] for m in members)), row)
    for i, (name, (test, what)) in enumerate(members):
        if not test(row[i]):
            raise bad(path, "%s[%d]" % (where, i), "%s (%s)" % (what, name),
                      row[i])


def check_list(path, doc, name, check, members):
    if name not in doc:
        raise ProfileError("%s: member '%s' missing" % (path, name))
    if not isinstance(doc[name], list):
        raise bad(path, name, "a list", doc[name])
    for i, x in enumerate(doc[name]):
        check(path, "%s[%d]" % (name, i), x, members)


def check_ids(path, doc):
    """The ids are the positions, and rows name what the profile has."""
    for name in ("objects", "processes", "threads"):
        for i, x in enumerate(doc[name]):
            if x["id"] != i:
                raise bad(path, "%s[%d].id" % (name, i), str(i), x["id"])
    n = {k: len(doc[k]) for k in ("objects", "processes", "threads")}
    refs = [("objects[%d].creator", doc["objects"], "creator", "processes"),
            ("threads[%d].process", doc["threads"], "process", "processes")]
    for where, lst, member, target in refs:
        for i, x in enumerate(lst):
            if x[member] >= n[target]:
                raise bad(path, where % i, "one of the %s" % target,
                          x[member])
    for i, x in enumerate(doc["processes"]):
        if x["parent"] is not None and x["parent"] >= n["processes"]:
            raise bad(path, "processes[%d].parent" % i,
                      "one of the processes", x["parent"])
        for j, o in enumerate(x["objects"]):
            if o >= n["objects"]:
                raise bad(path, "processes[%d].objects[%d]" % (i, j),
                          "one of the objects", o)
    for i, row in enumerate(doc["faults"]):
        for j, target in ((0, "threads"), (1, "objects")):
            if row[j] >= n[target]:
                raise bad(path, "faults[%d][%d]" % (i, j),
                          "one of the %s" % target, row[j])
    for i, row in enumerate(doc["without_event"]):
        if row[0] >= n["threads"]:
            raise bad(path, "without_event[%d][0]" % i, "one of the threads",
                      row[0])
    for i, row in enumerate(doc["calls"] or ()):
        for j, target in ((0, "threads"), (1, "objects")):
            if row[j] is not None and row[j] >= n[target]:
                raise bad(path, "calls[%d][%d]" % (i, j),
                          "one of the %s" % target, row[j])


def check_calls(path, doc):
    """calls: null (not recorded) or a list of rows (their pages:
    check_pages)."""
    if "calls" not in doc:
        raise ProfileError("%s: member 'calls' missing" % path)
    if doc["calls"] is None:
        return
    if not isinstance(doc["calls"], list):
        raise bad(path, "calls", "a list or null", doc["calls"])
    check_list(path, doc, "calls", check_row, CALL)


def check_sizes(path, doc):
    """Each object a whole number of pages, 1 or more."""
    page = doc["page_size"]
    for i, o in enumerate(doc["objects"]):
        if o["size"] < page or o["size"] % page:
            raise bad(path, "objects[%d].size" % i,
                      "a whole number of pages of %d bytes, 1 or more" %
                      page, o["size"])


def check_pages(path, doc):
    """A faults row's first_page and last_page, a calls row's first and
    last (where it names an object), are pages of its object (0 to its
    size / page_size - 1), the last at the first or above."""
    page = doc["page_size"]
    pages = [o["size"] // page for o in doc["objects"]]
    rows = [("faults", r, 6) for r in enumerate(doc["faults"])] + \
        [("calls", r, 6) for r in enumerate(doc["calls"] or ())
         if r[1][1] is not None]
    for name, (i, row), at in rows:
        n = pages[row[1]]
        for j in (at, at + 1):
            if row[j] >= n:
                raise bad(path, "%s[%d][%d]" % (name, i, j),
                          "a page of object %d (0 to %d: %d bytes)" % (
                              row[1], n - 1, doc["objects"][row[1]]["size"]),
                          row[j])
        if name == "faults":
            check_stride(path, i, row, n)
        if row[at + 1] < row[at]:
            raise ProfileError(
                "%s: member '%s[%d][%d]': %s (%d) or more expected%s, "
                "not %d" % (path, name, i, at + 1,
                            "last_page of first_page" if name == "faults"
                            else "last of first", row[at],
                            "" if name == "faults" else
                            " where an object is given", row[at + 1]))


def check_stride(path, i, row, pages):
    """A faults row's stride: 0 to its object's pages, 1 or more where
    its order is stride (libfaultgen's reader's bounds)."""
    if row[9] > pages:
        raise bad(path, "faults[%d][9]" % i,
                  "a stride of 0 to %d pages (object %d's)" % (pages, row[1]),
                  row[9])
    if row[8] == "stride" and row[9] < 1:
        raise bad(path, "faults[%d][9]" % i,
                  "a stride of 1 page or more (order stride)", row[9])


def check_schema(path, doc):
    if not isinstance(doc, dict):
        raise ProfileError("%s: not a fault profile: a JSON object is "
                           "expected" % path)
    if "schema" not in doc:
        raise ProfileError("%s: member 'schema' missing: not a fault "
                           "profile (%s)" % (path, SCHEMA))
    m = re.match(r"^pft-profile/([0-9]+)$", str(doc["schema"]))
    if not m or not isinstance(doc["schema"], str):
        raise bad(path, "schema", '"%s"' % SCHEMA, doc["schema"])
    if int(m.group(1)) != MAJOR:
        raise ProfileError("%s: member 'schema' is \"%s\": a version this "
                           "pft-survey does not read (it reads %s)" %
                           (path, doc["schema"], SCHEMA))


def check(path, doc):
    """A profile read as JSON, checked; ProfileError naming the member."""
    check_schema(path, doc)
    check_members(path, "", doc, TOP)
    check_list(path, doc, "objects", check_members, OBJECT)
    check_list(path, doc, "processes", check_members, PROCESS)
    check_list(path, doc, "threads", check_members, THREAD)
    check_list(path, doc, "faults", check_row, ROW)
    check_list(path, doc, "without_event", check_row, WITHOUT)
    check_calls(path, doc)
    check_ids(path, doc)
    check_sizes(path, doc)
    check_pages(path, doc)
    return doc


def parse(path, text):
    """A profile from its text; ProfileError for what is wrong."""
    if not text.strip():
        raise ProfileError("%s: empty: not a fault profile" % path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        end = len(text.rstrip())
        if e.pos >= end or e.msg.startswith("Unterminated string"):
            raise ProfileError("%s: truncated: the JSON ends at line %d "
                               "before it is complete" %
                               (path, text.count("\n", 0, end) + 1)) from None
        raise ProfileError("%s: not JSON: %s at line %d column %d" %
                           (path, e.msg, e.lineno, e.colno)) from None
    except RecursionError:
        raise ProfileError("%s: not a fault profile: nested too deep" %
                           path) from None
    return check(path, doc)


def load(path):
    """The profile at path; ProfileError (or OSError) with its line."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProfileError("%s: not UTF-8 text (byte %d)" %
                           (path, e.start)) from None
    return parse(path, text)
