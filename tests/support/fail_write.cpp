// An LD_PRELOAD library for the disk-full tests: write(2) to a file whose path contains
// $CUDAENV_TEST_ENOSPC fails with ENOSPC, as it does on a full disk, so a test can fill the
// disk under exactly one file (a receipt) and leave every other write alone.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" ssize_t write(int fd, const void* buffer, size_t size) {
  using WriteFunction = ssize_t (*)(int, const void*, size_t);
  static const WriteFunction real_write = reinterpret_cast<WriteFunction>(::dlsym(RTLD_NEXT, "write"));
  const char* match = std::getenv("CUDAENV_TEST_ENOSPC");
  if (match && *match && fd > 2) {
    char link[64], target[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = ::readlink(link, target, sizeof target - 1);
    if (length > 0) {
      target[length] = '\0';
      if (std::strstr(target, match)) {
        errno = ENOSPC;
        return -1;
      }
    }
  }
  return real_write(fd, buffer, size);
}
