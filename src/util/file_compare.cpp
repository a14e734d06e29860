#include "util/file_compare.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace cudaenv {

Result<bool> same_bytes(int a, int b) {
  struct stat a_info {
  }, b_info{};
  if (::fstat(a, &a_info) != 0 || ::fstat(b, &b_info) != 0) return make_error(std::strerror(errno));
  if (a_info.st_size != b_info.st_size) return false;
  std::vector<char> one(1 << 16), two(1 << 16);
  while (true) {
    ssize_t got = ::read(a, one.data(), one.size());
    if (got < 0) return make_error(std::strerror(errno));
    if (got == 0) return true;
    for (ssize_t done = 0; done < got;) {
      ssize_t more = ::read(b, two.data() + done, static_cast<size_t>(got - done));
      if (more < 0) return make_error(std::strerror(errno));
      if (more == 0) return false;  // shorter than its size said: it changed meanwhile
      done += more;
    }
    if (std::memcmp(one.data(), two.data(), static_cast<size_t>(got)) != 0) return false;
  }
}

}  // namespace cudaenv
