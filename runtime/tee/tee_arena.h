/* tee_arena: the isolated worker's heap, all of it reserved before the
 * worker enters seccomp strict mode (docs/tiers.md, "The worker").
 *
 * Why not malloc: after the filter is on, brk(2) and mmap(2) kill the
 * worker, so the allocator may never ask the kernel for memory. The arena
 * is one region given at set-up; blocks are power-of-two size classes
 * (a 16-byte header names the class) with one free list per class, cut
 * from the region's unused end or split from a larger free block. Nothing
 * is merged back: a worker whose arena ran dry (tee_arena_exhausted) is
 * retired after its answer, so fragmentation never outlives one worker.
 * The arena's size is the hard memory limit of the JavaScript it runs. */
#ifndef CS_RUNTIME_TEE_ARENA_H
#define CS_RUNTIME_TEE_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#define TEE_ARENA_CLASSES 48

struct tee_arena {
  unsigned char *base;
  size_t size;
  size_t top;  /* bytes cut from the region so far */
  size_t used; /* bytes in live blocks, headers and rounding included */
  size_t peak;
  bool failed; /* an allocation was refused */
  void *free_list[TEE_ARENA_CLASSES];
};

void tee_arena_init(struct tee_arena *a, void *base, size_t size);
void *tee_arena_alloc(struct tee_arena *a, size_t n);
void *tee_arena_realloc(struct tee_arena *a, void *p, size_t n);
void tee_arena_free(struct tee_arena *a, void *p);
/* An allocation was refused since init: the arena may be fragmented. */
bool tee_arena_exhausted(const struct tee_arena *a);

#endif
