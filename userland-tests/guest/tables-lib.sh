# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the guest scripts (run-tests.sh, tables.sh, stress.sh): the
# kernel's account of its unwind tables, /sys/kernel/debug/sframe_tables
# (Documentation/admin-guide/sframe-unwind.rst lists its fields).

TABLES=/sys/kernel/debug/sframe_tables

# tables_stat FIELD: a field of the account, empty if there is none
tables_stat() {
	awk -v f="$1" '$1 == f { print $2 }' "$TABLES" 2>/dev/null
}

# drop_idle_tables: evict the tables that no process maps (the shrinker
# runs on drop_caches 2; 4 first only to keep the kernel log quiet)
drop_idle_tables() {
	echo 4 >/proc/sys/vm/drop_caches && echo 2 >/proc/sys/vm/drop_caches
}
