# SPDX-License-Identifier: GPL-2.0-or-later
# lib/tests/pkgbuild.sh stand-in: the helpers the PKGBUILD calls, on the
# directories tests/harness-lkp.sh prepares.
prepare_benchmark_path()
{
	export benchmark_path="$pkgdir/lkp/benchmarks/$pkgname"
}

rename_versioned_src_pkg_dir()
{
	mv "$srcdir/${1:-$pkgname-$pkgver}" "$srcdir/$pkgname"
}

cd_src_pkg_dir()
{
	cd "$srcdir/${1:-$pkgname}" || exit 1
}

log_cmd()
{
	"$@"
}
