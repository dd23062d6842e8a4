/* pnetc_exit: see pnetc_exit.h; the table is docs/pnetc.md, "Exit status". */
#include "pnetc_exit.h"

#include <errno.h>
#include <string.h>

#include "c_text.h"

int pnetc_exit_for(int err)
{
  switch (err) {
  case 0:
    return PNETC_EXIT_OK;
  /* Resource limits: the input may be fine, the machine or a bound is not
   * (--max-states, BPF_MAXINSNS, a count the tables cannot hold, memory,
   * a full disk or quota). */
  case -E2BIG:
  case -ENOMEM:
  case -EOVERFLOW:
  case -ENOSPC:
  case -EDQUOT:
  case -EFBIG:
    return PNETC_EXIT_LIMIT;
  /* No safe initial marking: the model cannot be scheduled, which is a
   * property of the model like a failed assertion. */
  case -EDOM:
    return PNETC_EXIT_ASSERTION;
  /* Everything else is bad input, usage, or an output that cannot be
   * created or written (-ENOENT, -EACCES, -EROFS, -EIO, ...). */
  default:
    return PNETC_EXIT_INPUT;
  }
}

int pnetc_output_status(FILE *out)
{
  if (out == stdout && fflush(stdout) != 0 && !ferror(stdout))
    return -EIO;
  return text_stream_status(out);
}

int pnetc_fail(int err, const char *output)
{
  if (err == -ENOMEM)
    fprintf(stderr, "pnetc: error: out of memory\n");
  if (err == -EIO || err == -ENOSPC || err == -EDQUOT || err == -EFBIG)
    fprintf(stderr, "pnetc: error: cannot write %s: %s\n", output ? output : "standard output",
            strerror(-err));
  return pnetc_exit_for(err);
}
