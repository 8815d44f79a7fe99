# SPDX-License-Identifier: GPL-2.0-or-later
# pft_survey - pft-survey: which VMAs of a real program take its page
# faults, from how many threads at once, and the pft command line that
# generates the same pattern.  Shipped as one command, pft-survey, a
# zipapp of this package and pft_common (pft/common/mkzipapp.py).
#
# Copyright (C) 2026 The libfaultgen authors
#
# perf does the recording: "perf record -e page-faults -d" gives each
# fault's process, thread, time and data address, and perf's MMAP records
# the mappings.  The survey runs perf (record), snapshots /proc/PID/maps,
# smaps and the threads' fault counters while the program runs (proc,
# vmas), joins each fault to the kernel's VMA that holds its address
# (analysis), tells the kinds of faults and the objects (kinds, objects),
# judges the pattern (verdict) and reports per VMA (render, cli).
#
# Which counter counts what: perf's page-faults software event fires in
# the architecture's fault handler, for faults taken by user space and by
# the kernel touching user memory (copy_to_user).  The kernel's minflt
# and majflt (/proc/PID/stat, getrusage) also count faults taken in the
# kernel on the task's behalf without a fault exception: get_user_pages
# paths such as MADV_POPULATE_READ/WRITE, mlock, MAP_POPULATE.  The
# difference between the two is reported as such.
