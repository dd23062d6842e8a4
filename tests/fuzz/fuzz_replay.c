/* Runs a libFuzzer harness over files without libFuzzer: the seed corpus
 * becomes a regression test in every build (plain and ASan+UBSan), and a
 * crash found by tests/bench/fuzz.sh can be replayed by naming its file.
 * Usage: fuzz_replay FILE|DIR... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 4096;
      uint8_t *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        fclose(f);
        return -1;
      }
      buf = grown;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

static int name_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
  int n = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (replay_file(argv[i]) != 0)
        return 1;
      n++;
      continue;
    }
    struct dirent **list = NULL;
    int m = scandir(argv[i], &list, NULL, NULL);
    if (m < 0) {
      perror(argv[i]);
      return 1;
    }
    char **names = calloc((size_t)m + 1, sizeof *names);
    int k = 0;
    for (int j = 0; j < m; j++) {
      if (list[j]->d_name[0] != '.' && names &&
          asprintf(&names[k], "%s/%s", argv[i], list[j]->d_name) >= 0)
        k++;
      free(list[j]);
    }
    free(list);
    if (!names)
      return 1;
    qsort(names, (size_t)k, sizeof *names, name_cmp);
    for (int j = 0; j < k; j++) {
      if (replay_file(names[j]) != 0)
        return 1;
      free(names[j]);
      n++;
    }
    free(names);
  }
  printf("replayed %d inputs\n", n);
  return n ? 0 : 1;
}
