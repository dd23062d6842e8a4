/* Negative control of tests/headers/check_headers.cmake: size_t without
 * <stddef.h>, so this header does not compile alone. */
#ifndef CONTROL_NOT_ALONE_H
#define CONTROL_NOT_ALONE_H
size_t control_length(const char *s);
#endif
