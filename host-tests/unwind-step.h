/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One frame of a walk over one section, the way the kernel's walkers
 * chain the reader's two steps (look the rule up, then apply it), for the
 * host tests of the reader.
 */
#ifndef HOST_UNWIND_STEP_H
#define HOST_UNWIND_STEP_H

#include "sframe_read.h"

/*
 * Return: 0 with @frame replaced by its caller's, -ENOENT when @frame is
 * the outermost frame or not covered, -EINVAL on an inconsistent rule or
 * stack, -EFAULT when the stack cannot be read.
 */
static inline int host_unwind_step(const struct sframe_section *sec,
				   struct sframe_frame *frame)
{
	struct sframe_row row;
	int ret;

	ret = sframe_find_row(sec, sframe_lookup_pc(frame), &row);
	if (ret)
		return ret;
	return sframe_unwind_row(&row, frame);
}

#endif
