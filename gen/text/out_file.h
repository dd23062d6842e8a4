/* out_file: output files that appear whole or not at all.
 *
 * Generated tables are inputs to builds and audits; a half-written file
 * left by a failed run would be compiled or read as if it were complete.
 * So every output is written to a hidden temporary file in the directory
 * of its final name (same file system: rename(2) is atomic there) and is
 * renamed into place only once everything was written and closed without
 * error. A group of files (NAME.c + NAME.h) is committed together: all are
 * finished before the first rename, so an I/O error leaves none of them.
 *
 * Every function returns 0 or a negative errno from this list:
 *   -ENOMEM, and whatever open(2), write(2), close(2), rename(2) report
 *   (-EACCES, -ENOENT, -ENOSPC, -EDQUOT, -EIO, ...).
 * Failures also print "path: error: <reason>" on the diag stream. */
#ifndef CS_GEN_OUT_FILE_H
#define CS_GEN_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

struct out_file;

/* Creates the temporary file for path (mode 0666 & ~umask, like any
 * output of a compiler). */
int out_file_open(const char *path, struct out_file **out);
/* The stream to write to; errors are checked at commit time. */
FILE *out_file_stream(struct out_file *f);
const char *out_file_path(const struct out_file *f);
/* Finishes (flush + close, checking both) and renames into place; always
 * frees f. On failure the temporary file is removed. */
int out_file_commit(struct out_file *f);
/* All or nothing for a group: every file is finished first; a failure
 * removes every temporary file (and undoes renames already done, so no
 * mismatched pair remains). Always frees every entry. */
int out_file_commit_all(struct out_file **files, size_t n);
/* Discards the temporary file; NULL is allowed. */
void out_file_abort(struct out_file *f);

/* Writes a Make-style dependency file (the format CMake's DEPFILE and
 * Ninja read): "target: dep..." with every dependency made absolute (the
 * build reads it from its own directory, not from ours), then an empty
 * rule per dependency so deleting an included file reruns the generator
 * instead of failing the build. Spaces, '#' and '\' are escaped, '$'
 * doubled. Returns 0 or -EIO (the stream reported an error). */
int out_file_write_depfile(FILE *out, const char *target, const char *const *deps, size_t ndeps);

/* An absolute spelling of path (relative ones joined to the current
 * directory, not resolved), for a depfile's target; NULL on ENOMEM. */
char *out_file_absolute(const char *path);

/* The usual ending of a pnetc back end: when depfile is not NULL, writes
 * the dependency list of target to it (out_file_write_depfile) and commits
 * it in one group with files[0..n) (out_file_commit_all), so a build never
 * sees a depfile promising outputs that were not written. Always frees
 * every entry of files; 0 or a negative errno. */
int out_file_commit_group(struct out_file **files, size_t n, const char *depfile,
                          const char *target, const char *const *deps, size_t ndeps);

#endif
