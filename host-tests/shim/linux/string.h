/* Host shim for the SFrame reader. */
#ifndef _HOST_SHIM_LINUX_STRING_H
#define _HOST_SHIM_LINUX_STRING_H
#include <string.h>
#endif
