# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh stand-in: the benchmark's directory, where the PKGBUILD put pft.
cd_benchmark()
{
	cd "$BENCHMARK_ROOT/pft" || die "$BENCHMARK_ROOT/pft does not exist"
}
