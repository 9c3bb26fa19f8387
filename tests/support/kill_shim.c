/*
 * An LD_PRELOAD shim for the kill harness (tests/kill_points.rs): counts the file events a
 * process makes in one folder, and kills the process with SIGKILL just before the Nth.
 *
 *   KILL_DIR  the folder (an absolute path): events on paths under it, and writes and syncs
 *             of files opened under it, count.
 *   KILL_AT   N: SIGKILL before the Nth event (1-based); 0 or unset: count only.
 *   KILL_LOG  a file each event is appended to as "N kind path" (optional).
 *
 * Events: an open for writing (open, open64, openat, openat64, creat), write, pwrite,
 * writev, fsync, fdatasync, rename, renameat, unlink, unlinkat, mkdir. Calls made without
 * libc (rustix's raw syscalls: tempfile's rename of an atomic write) are not seen; a kill
 * just after one is the kill before the next event.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FD 65536
static atomic_long counter;
static atomic_char tracked[MAX_FD];
/* The path each tracked descriptor was opened with, for the log. */
static char *paths[MAX_FD];

static int under_dir(const char *path) {
  const char *dir = getenv("KILL_DIR");
  if (!dir || !path) return 0;
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static void event(const char *kind, const char *path) {
  long n = atomic_fetch_add(&counter, 1) + 1;
  const char *at = getenv("KILL_AT");
  long kill_at = at ? atol(at) : 0;
  const char *log = getenv("KILL_LOG");
  if (log) {
    static int (*real_open)(const char *, int, ...);
    if (!real_open) real_open = dlsym(RTLD_NEXT, "open");
    static ssize_t (*real_write)(int, const void *, size_t);
    if (!real_write) real_write = dlsym(RTLD_NEXT, "write");
    int fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      char line[4096];
      int len = snprintf(line, sizeof line, "%ld %s %s\n", n, kind, path ? path : "");
      if (len > 0) real_write(fd, line, len < (int)sizeof line ? (size_t)len : sizeof line - 1);
      close(fd);
    }
  }
  if (kill_at > 0 && n == kill_at) kill(getpid(), SIGKILL);
}

static void fd_event(const char *kind, int fd) {
  if (fd >= 0 && fd < MAX_FD && tracked[fd]) event(kind, paths[fd]);
}

static int writing(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

static int opened(int fd, const char *path, int flags) {
  if (fd >= 0 && fd < MAX_FD) {
    tracked[fd] = under_dir(path) && writing(flags);
    if (tracked[fd]) {
      free(paths[fd]);
      paths[fd] = strdup(path);
    }
  }
  return fd;
}

#define REAL(name, ret, ...) \
  static ret (*real)(__VA_ARGS__); \
  if (!real) real = dlsym(RTLD_NEXT, name)

int open(const char *path, int flags, ...) {
  REAL("open", int, const char *, int, ...);
  va_list ap; va_start(ap, flags); mode_t mode = va_arg(ap, int); va_end(ap);
  if (under_dir(path) && writing(flags)) event("open", path);
  return opened(real(path, flags, mode), path, flags);
}
int open64(const char *path, int flags, ...) {
  REAL("open64", int, const char *, int, ...);
  va_list ap; va_start(ap, flags); mode_t mode = va_arg(ap, int); va_end(ap);
  if (under_dir(path) && writing(flags)) event("open", path);
  return opened(real(path, flags, mode), path, flags);
}
int openat(int dirfd, const char *path, int flags, ...) {
  REAL("openat", int, int, const char *, int, ...);
  va_list ap; va_start(ap, flags); mode_t mode = va_arg(ap, int); va_end(ap);
  if (under_dir(path) && writing(flags)) event("open", path);
  return opened(real(dirfd, path, flags, mode), path, flags);
}
int openat64(int dirfd, const char *path, int flags, ...) {
  REAL("openat64", int, int, const char *, int, ...);
  va_list ap; va_start(ap, flags); mode_t mode = va_arg(ap, int); va_end(ap);
  if (under_dir(path) && writing(flags)) event("open", path);
  return opened(real(dirfd, path, flags, mode), path, flags);
}
int creat(const char *path, mode_t mode) {
  REAL("creat", int, const char *, mode_t);
  if (under_dir(path)) event("open", path);
  return opened(real(path, mode), path, O_CREAT | O_WRONLY);
}
int close(int fd) {
  REAL("close", int, int);
  if (fd >= 0 && fd < MAX_FD) tracked[fd] = 0;
  return real(fd);
}
ssize_t write(int fd, const void *buf, size_t count) {
  REAL("write", ssize_t, int, const void *, size_t);
  fd_event("write", fd);
  return real(fd, buf, count);
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  REAL("pwrite64", ssize_t, int, const void *, size_t, off_t);
  fd_event("write", fd);
  return real(fd, buf, count, offset);
}
ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  REAL("writev", ssize_t, int, const struct iovec *, int);
  fd_event("write", fd);
  return real(fd, iov, iovcnt);
}
int fsync(int fd) {
  REAL("fsync", int, int);
  fd_event("fsync", fd);
  return real(fd);
}
int fdatasync(int fd) {
  REAL("fdatasync", int, int);
  fd_event("fsync", fd);
  return real(fd);
}
int rename(const char *from, const char *to) {
  REAL("rename", int, const char *, const char *);
  if (under_dir(to) || under_dir(from)) event("rename", to);
  return real(from, to);
}
int renameat(int fromfd, const char *from, int tofd, const char *to) {
  REAL("renameat", int, int, const char *, int, const char *);
  if (under_dir(to) || under_dir(from)) event("rename", to);
  return real(fromfd, from, tofd, to);
}
int unlink(const char *path) {
  REAL("unlink", int, const char *);
  if (under_dir(path)) event("unlink", path);
  return real(path);
}
int unlinkat(int dirfd, const char *path, int flags) {
  REAL("unlinkat", int, int, const char *, int);
  if (under_dir(path)) event("unlink", path);
  return real(dirfd, path, flags);
}
int mkdir(const char *path, mode_t mode) {
  REAL("mkdir", int, const char *, mode_t);
  if (under_dir(path)) event("mkdir", path);
  return real(path, mode);
}
