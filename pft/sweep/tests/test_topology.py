# SPDX-License-Identifier: GPL-2.0-or-later
# test_topology.py - pft_sweep.topology on small fake sysfs trees: the
# allowed CPUs (offline ones left out), the groups by L3, L2, core and
# node with one thread of each core first, what sysfs lacks, the summary,
# and the points of --cpu-groups with their labels and errors.
#
# Copyright (C) 2026 The libfaultgen authors

import os
import tempfile
import types
import unittest
from unittest import mock

from pft_sweep import cli, topology
from pft_sweep.common import UsageError

from .fakesys import add_cpu, write


def machine(root, nodes=True):
    """8 CPUs, two L3 domains (0-3, 4-7), cores of two threads (0-1,
    2-3, ...) with an L2 each, nodes 0 and 1 like the L3 domains; CPU 7
    offline, CPU 0 without an online file (as sysfs has it)."""
    for cpu in range(8):
        core = "%d-%d" % (cpu & ~1, cpu | 1)
        add_cpu(root, cpu, l3="0-3" if cpu < 4 else "4-7", l2=core,
                core=core, node=(cpu // 4) if nodes else None,
                online=None if cpu == 0 else "0" if cpu == 7 else "1")
    write(os.path.join(root, "devices", "system", "cpu", "online"), "0-6")


class FakeTree(unittest.TestCase):
    nodes = True

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        machine(self.root, self.nodes)
        env = mock.patch.dict(os.environ, {"PFT_SWEEP_SYSFS": self.root})
        env.start()
        self.addCleanup(env.stop)
        self.addCleanup(self.tmp.cleanup)
        self.topo = topology.Topology()


class Groups(FakeTree):
    def test_allowed_are_the_online_cpus(self):
        self.assertEqual(self.topo.root, self.root)
        self.assertEqual(self.topo.allowed(), [0, 1, 2, 3, 4, 5, 6])

    def test_groups(self):
        allowed = self.topo.allowed()
        # One thread of each core before any core's second thread.
        self.assertEqual(self.topo.groups("l3", allowed),
                         [[0, 2, 1, 3], [4, 6, 5]])
        self.assertEqual(self.topo.groups("l2", allowed),
                         [[0, 1], [2, 3], [4, 5], [6]])
        self.assertEqual(self.topo.groups("core", allowed),
                         [[0, 1], [2, 3], [4, 5], [6]])
        self.assertEqual(self.topo.groups("node", allowed),
                         [[0, 2, 1, 3], [4, 6, 5]])
        self.assertEqual(self.topo.groups("l3", [1, 5]), [[1], [5]])

    def test_summary(self):
        self.assertEqual(self.topo.summary(self.topo.allowed()), {
            "cpus": 7, "cpus_allowed": "0-6", "cpus_online": "0-6",
            "l3_domains": 2, "l2_domains": 4, "cores": 4,
            "threads_per_core": 2, "nodes": 2})

    def test_cache_id_when_no_shared_list(self):
        for cpu in range(8):
            os.remove(os.path.join(self.root, "devices", "system", "cpu",
                                   "cpu%d" % cpu, "cache", "index3",
                                   "shared_cpu_list"))
            write(os.path.join(self.root, "devices", "system", "cpu",
                               "cpu%d" % cpu, "cache", "index3", "id"),
                  str(cpu % 2))
        self.assertEqual(topology.Topology().groups("l3", [0, 1, 2, 3]),
                         [[0, 2], [1, 3]])


class Layouts(FakeTree):
    def rows(self, spec, workers=None):
        c = types.SimpleNamespace(cpu_groups=[cli.type_groups(spec)],
                                  workers=workers)
        return [(r["layout"], r["label"], r["workers"], r["cpus"])
                for r in topology.layout_rows(c, self.topo,
                                              self.topo.allowed())]

    def test_layouts_and_labels(self):
        self.assertEqual(self.rows("l3=CCD:1x2,allx1,2xall,1x2"), [
            ("l3:1x2", "1 CCD, 2 workers", 2, [0, 2]),
            ("l3:2x1", "2 CCDs, 1 worker each", 2, [0, 4]),
            ("l3:2xall", "2 CCDs, all 7 CPUs", 7, [0, 1, 2, 3, 4, 5, 6]),
        ])
        self.assertEqual(self.rows("core:1xall"), [
            ("core:1xall", "1 core, all 2 CPUs", 2, [0, 1])])

    def test_one_worker_per_group(self):
        self.assertEqual(self.rows("node", workers=[1, 2]), [
            ("node:1x1", "1 node, 1 worker", 1, [0]),
            ("node:2x1", "2 nodes, 1 worker each", 2, [0, 4])])
        # Without --workers: 1, 2, 4, ... below the groups, then all.
        self.assertEqual([r[0] for r in self.rows("core")],
                         ["core:1x1", "core:2x1", "core:4x1"])

    def test_too_many(self):
        for spec, text in (
                ("l3:3x1", "--cpu-groups=l3:3x1: 3 L3 domains asked, the "
                 "allowed CPUs span 2"),
                ("l3:2x4", "--cpu-groups=l3:2x4: 4 workers per L3 domain "
                 "asked, the L3 domain of CPU 4 has 3 allowed CPU(s)")):
            with self.assertRaises(UsageError) as e:
                self.rows(spec)
            self.assertEqual(str(e.exception), text)


class NoNodes(FakeTree):
    nodes = False

    def test_missing_node(self):
        with self.assertRaises(RuntimeError) as e:
            self.topo.groups("node", self.topo.allowed())
        self.assertEqual(str(e.exception),
                         "--cpu-groups=node: sysfs gives no NUMA node for "
                         "CPU 0 (%s/devices/system/cpu/cpu0/)" % self.root)
        self.assertIsNone(self.topo.summary([0, 1])["nodes"])


class Helpers(unittest.TestCase):
    def test_no_tree(self):
        with mock.patch.dict(os.environ, {"PFT_SWEEP_SYSFS": "/nonexistent"}):
            with self.assertRaises(RuntimeError) as e:
                topology.Topology().allowed()
        self.assertEqual(str(e.exception), "PFT_SWEEP_SYSFS: cannot read "
                         "/nonexistent/devices/system/cpu: No such file or "
                         "directory")

    def test_format_cpus(self):
        self.assertEqual(topology.format_cpus([0, 1, 2, 3, 7]), "0-3,7")
        self.assertEqual(topology.format_cpus([9, 3, 2]), "2-3,9")
        self.assertEqual(topology.format_cpus([5]), "5")
        self.assertEqual(topology.format_cpus([]), "")

    def test_default_counts(self):
        self.assertEqual(topology.default_counts(1), [1])
        self.assertEqual(topology.default_counts(6), [1, 2, 4, 6])
        self.assertEqual(topology.default_counts(8), [1, 2, 4, 8])


if __name__ == "__main__":
    unittest.main()
