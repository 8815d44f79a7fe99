# SPDX-License-Identifier: GPL-2.0-or-later
# sysinfo.sh stand-in: the worker counts to iterate over without nr_task.
setup_threads_to_iterate()
{
	threads_to_iterate=${STUB_THREADS:-"1 2"}
	export threads_to_iterate
}
