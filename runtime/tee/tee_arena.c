/* tee_arena: size-class allocator over a fixed region (see tee_arena.h). */
#include "tee_arena.h"

#include <stdint.h>
#include <string.h>

#define TEE_ARENA_HEADER 16u
#define TEE_ARENA_MIN_CLASS 5u /* 32 bytes: the header and 16 of payload */

struct tee_block {
  size_t cls;   /* the block is 1 << cls bytes, header included */
  size_t magic; /* catches a free of something the arena never gave */
};
#define TEE_ARENA_MAGIC ((size_t)0x7465652d626c6bULL)

void tee_arena_init(struct tee_arena *a, void *base, size_t size)
{
  memset(a, 0, sizeof(*a));
  a->base = base;
  a->size = size;
}

static unsigned tee_arena_class(size_t n)
{
  unsigned c = TEE_ARENA_MIN_CLASS;

  while (c < TEE_ARENA_CLASSES && ((size_t)1 << c) < n)
    c++;
  return c;
}

/* A block of class c: from its list, split from a larger free block, or
 * cut from the unused end. NULL when none is left. */
static struct tee_block *tee_arena_take(struct tee_arena *a, unsigned c)
{
  size_t bytes = (size_t)1 << c;
  struct tee_block *b;

  if (a->free_list[c]) {
    b = a->free_list[c];
    a->free_list[c] = *(void **)((unsigned char *)b + TEE_ARENA_HEADER);
    return b;
  }
  if (a->size - a->top >= bytes) {
    b = (struct tee_block *)(a->base + a->top);
    a->top += bytes;
    return b;
  }
  for (unsigned k = c + 1; k < TEE_ARENA_CLASSES; k++) {
    if (!a->free_list[k])
      continue;
    unsigned char *big = a->free_list[k];
    a->free_list[k] = *(void **)(big + TEE_ARENA_HEADER);
    /* Keep the first 1 << c bytes; the halves above go to their lists. */
    for (unsigned h = k; h > c; h--) {
      unsigned char *half = big + ((size_t)1 << (h - 1));
      ((struct tee_block *)half)->cls = h - 1;
      ((struct tee_block *)half)->magic = TEE_ARENA_MAGIC;
      *(void **)(half + TEE_ARENA_HEADER) = a->free_list[h - 1];
      a->free_list[h - 1] = half;
    }
    return (struct tee_block *)big;
  }
  return NULL;
}

void *tee_arena_alloc(struct tee_arena *a, size_t n)
{
  struct tee_block *b;
  unsigned c;

  if (n > a->size || n + TEE_ARENA_HEADER < n) {
    a->failed = true;
    return NULL;
  }
  c = tee_arena_class(n + TEE_ARENA_HEADER);
  if (c >= TEE_ARENA_CLASSES || !(b = tee_arena_take(a, c))) {
    a->failed = true;
    return NULL;
  }
  b->cls = c;
  b->magic = TEE_ARENA_MAGIC;
  a->used += (size_t)1 << c;
  if (a->used > a->peak)
    a->peak = a->used;
  return (unsigned char *)b + TEE_ARENA_HEADER;
}

static struct tee_block *tee_arena_block(void *p)
{
  return (struct tee_block *)((unsigned char *)p - TEE_ARENA_HEADER);
}

void tee_arena_free(struct tee_arena *a, void *p)
{
  struct tee_block *b;

  if (!p)
    return;
  b = tee_arena_block(p);
  if (b->magic != TEE_ARENA_MAGIC || b->cls >= TEE_ARENA_CLASSES)
    __builtin_trap(); /* a corrupted heap must not be used on */
  a->used -= (size_t)1 << b->cls;
  *(void **)p = a->free_list[b->cls];
  a->free_list[b->cls] = b;
}

void *tee_arena_realloc(struct tee_arena *a, void *p, size_t n)
{
  struct tee_block *b;
  size_t have;
  void *q;

  if (!p)
    return tee_arena_alloc(a, n);
  if (n == 0) {
    tee_arena_free(a, p);
    return NULL;
  }
  b = tee_arena_block(p);
  have = ((size_t)1 << b->cls) - TEE_ARENA_HEADER;
  /* Stay in place while the block fits and is not over twice the need. */
  if (n <= have && (b->cls == TEE_ARENA_MIN_CLASS || n > have / 2))
    return p;
  q = tee_arena_alloc(a, n);
  if (!q)
    return NULL;
  memcpy(q, p, n < have ? n : have);
  tee_arena_free(a, p);
  return q;
}

bool tee_arena_exhausted(const struct tee_arena *a)
{
  return a->failed;
}
