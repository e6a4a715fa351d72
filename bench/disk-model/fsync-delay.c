/*
 * The benchmark's disk model (bench/lib/disk-model.ts): an LD_PRELOAD library that adds a fixed
 * latency to every call that waits for data to reach the disk, so a server on this machine's fast
 * disk behaves like one on a disk whose flush takes that long (a cloud block volume, an older CI
 * machine).
 *
 * Delayed, after the real call returns: fsync, fdatasync, syncfs, sync. That is where PostgreSQL
 * waits on its disk: WAL flushes at commit (wal_sync_method fdatasync, Linux's default), data
 * files at checkpoints, initdb's sync of the new cluster.
 * Not delayed: sync_file_range (PostgreSQL only starts writeback with it, SYNC_FILE_RANGE_WRITE,
 * and does not wait), reads and writes (they go to the page cache on a real disk too), files
 * opened O_SYNC/O_DSYNC (not used with PostgreSQL's defaults on Linux), and calls made inside
 * libc itself. Every call pays the whole latency, however little it has to write.
 *
 * PG_TMPFS_FSYNC_DELAY_US: the latency in microseconds (unset or 0: none). errno is kept.
 * Build: cc -shared -fPIC -O2 -o fsync-delay.so fsync-delay.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long delay_us = -1;

static void delay(void) {
  int saved = errno;
  if (delay_us < 0) {
    const char *v = getenv("PG_TMPFS_FSYNC_DELAY_US");
    delay_us = v ? atol(v) : 0;
    if (delay_us < 0) delay_us = 0;
  }
  if (delay_us > 0) {
    struct timespec left = {delay_us / 1000000, (delay_us % 1000000) * 1000};
    while (nanosleep(&left, &left) == -1 && errno == EINTR) {
    }
  }
  errno = saved;
}

#define DELAYED(name)                                            \
  int name(int fd) {                                             \
    static int (*real)(int);                                     \
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, #name);     \
    int r = real ? real(fd) : (errno = ENOSYS, -1);              \
    delay();                                                     \
    return r;                                                    \
  }

DELAYED(fsync)
DELAYED(fdatasync)
DELAYED(syncfs)

void sync(void) {
  static void (*real)(void);
  if (!real) real = (void (*)(void))dlsym(RTLD_NEXT, "sync");
  if (real) real();
  delay();
}
