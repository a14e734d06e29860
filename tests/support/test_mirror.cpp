// A loopback HTTP/1.1 file server for the install tests and benchmark: binds 127.0.0.1 on a
// free port, prints the port, serves --root with Range support, and injects faults per path.
//
//   test_mirror --root DIR [--faults FILE] [--log FILE] [--rate BYTES_PER_SECOND]
//
// --rate makes every body share one link of that speed (bench/install.sh): all transfers
// together send no faster, as behind one line to the CDN.
// FILE is re-read on every request, so a test can change faults while the server runs; a change
// restarts the request counts. Each
// line is "<url-path> <fault> [N]"; the first N requests of that path (default: all) get it:
//   404            answer 404 Not Found
//   410            answer 410 Gone
//   500            answer 500 Internal Server Error
//   reset          send the headers and half the body, then reset the connection
//   truncate       send the headers and half the body, then close the connection cleanly
//   corrupt        send the body with one byte flipped
//   trickle        send the body 2 kB per 50 ms
//   no-range       ignore Range headers (answer 200 with the whole file)
//   no-range-corrupt  both: the whole file again, its first byte flipped
//   slowloris      send the status line, then one header byte per 500 ms, forever
//   endless        answer 200 without a length and send a body that never ends
//   huge-json      announce a 1 GB body and send the start of a JSON string, then more forever
//   drip           answer 200 without a length and send 2 kB a second forever: above curl's
//                  low-speed limit, so only an overall deadline ends it
// A folder's path (ending in '/') is answered with an HTML listing of its entries in the style
// of NVIDIA's redist index page (a table of links, sizes and dates), unless it holds an
// index.html, which is served instead (a package index's project page).
// --log appends "<method> <path> range=<start or ->" per request.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string g_root;
std::string g_faults_file;
std::string g_log_file;
std::mutex g_mutex;
std::map<std::string, int> g_served;  // requests seen per path since the faults last changed
std::string g_faults;
double g_rate = 0;                                  // bytes per second of the one link all bodies share; 0: unlimited
std::chrono::steady_clock::time_point g_link_free;  // when the link has sent what was queued on it

// Waits for the link's turn to send `bytes`: each piece of every body takes its slot in one
// queue, so concurrent transfers share the rate.
void pace(size_t bytes) {
  if (g_rate <= 0) return;
  std::chrono::steady_clock::time_point send_at;
  {
    std::lock_guard lock(g_mutex);
    auto now = std::chrono::steady_clock::now();
    g_link_free = std::max(g_link_free, now);
    send_at = g_link_free;
    g_link_free += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(bytes / g_rate));
  }
  std::this_thread::sleep_until(send_at);
}

struct Fault {
  std::string kind;
  int first = -1;  // applies to the first N requests; -1: all
};

std::string read_faults() {
  std::ifstream in(g_faults_file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<Fault> fault_for(const std::string& path, int request_number, const std::string& faults) {
  std::istringstream in(faults);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string fault_path;
    Fault fault;
    if (!(words >> fault_path >> fault.kind) || fault_path != path) continue;
    words >> fault.first;
    if (fault.first < 0 || request_number <= fault.first) return fault;
  }
  return std::nullopt;
}

bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool send_text(int fd, const std::string& text) { return send_all(fd, text.data(), text.size()); }

void send_status(int fd, int code, const char* reason) {
  std::string body = std::to_string(code) + " " + reason + "\n";
  send_text(fd, "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n\r\n" + body);
}

void reset_connection(int fd) {
  struct linger hard {
    1, 0
  };
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
}

// Copies [offset, offset+length) of `file` to the socket, as the fault says.
void send_body(int fd, int file, off_t offset, off_t length, const std::string& fault) {
  if (fault == "reset" || fault == "truncate") length /= 2;
  if (fault == "trickle" || fault == "corrupt" || fault == "no-range-corrupt") {
    char buffer[2048];
    bool flipped = false;
    while (length > 0) {
      ssize_t got = ::pread(file, buffer, std::min<off_t>(sizeof buffer, length), offset);
      if (got <= 0) return;
      if ((fault == "corrupt" || fault == "no-range-corrupt") && !flipped) {
        buffer[0] ^= 0x5a;
        flipped = true;
      }
      if (!send_all(fd, buffer, static_cast<size_t>(got))) return;
      offset += got;
      length -= got;
      if (fault == "trickle") std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return;
  }
  // Paced in pieces of 64 kB: at 40 MB/s each is 1.6 ms of the link.
  const off_t piece = g_rate > 0 ? 64 << 10 : 1 << 30;
  while (length > 0) {
    pace(static_cast<size_t>(std::min<off_t>(length, piece)));
    ssize_t sent = ::sendfile(fd, file, &offset, static_cast<size_t>(std::min<off_t>(length, piece)));
    if (sent <= 0) return;
    length -= sent;
  }
  if (fault == "reset") {
    // Let the client read what was sent: a reset discards data still in flight.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    reset_connection(fd);
  }
}

// A project page's type by its first byte (the test indexes write PEP 691 JSON and PEP 503 HTML
// alike as index.html), as a package index sends it: uv refuses a page without one.
std::string content_type(int file, const std::string& path) {
  if (!path.ends_with(".html")) return "application/octet-stream";
  char first = 0;
  if (::pread(file, &first, 1, 0) == 1 && first == '{') return "application/vnd.pypi.simple.v1+json";
  return "text/html";
}

// Bodies of the hostile faults: each ends only when the client goes away.
void send_forever(int fd, const std::string& headers, const std::string& start, char filler) {
  if (!send_text(fd, headers) || !send_text(fd, start)) return;
  std::string chunk(64 * 1024, filler);
  while (send_text(fd, chunk)) {
  }
}

void send_slowloris(int fd) {
  std::string headers = "HTTP/1.1 200 OK\r\nX-Padding: ";
  if (!send_text(fd, headers)) return;
  while (send_text(fd, "a")) std::this_thread::sleep_for(std::chrono::milliseconds(500));
}

bool send_hostile(int fd, const std::string& fault) {
  if (fault == "slowloris") {
    send_slowloris(fd);
  } else if (fault == "endless") {
    send_forever(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", "", ' ');
  } else if (fault == "huge-json") {
    send_forever(fd, "HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\nConnection: close\r\n\r\n", "{\"a\": \"", 'x');
  } else if (fault == "drip") {
    if (!send_text(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{")) return true;
    std::string chunk(2048, ' ');
    while (send_text(fd, chunk)) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else {
    return false;
  }
  return true;
}

// NVIDIA's index page lays entries out as table rows: link, size, date.
void send_listing(int fd, const std::string& path, const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* folder = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(folder)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      struct stat st {};
      if (::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) name += "/";
      names.push_back(name);
    }
    ::closedir(folder);
  }
  std::sort(names.begin(), names.end());
  std::string body = "<!DOCTYPE html>\n<html><head><title>Index of " + path + "</title></head>\n<body>\n<h1>Index of " + path +
                     "</h1>\n<table class=\"listing\">\n<tr><th>Name</th><th>Size</th><th>Modified</th></tr>\n"
                     "<tr><td>-</td><td><a href=\"../\">..</a></td><td></td></tr>\n";
  for (const std::string& name : names) {
    body += "<tr><td>-</td><td><a href='" + name + "'>" + name + "</a></td><td>4.0KB</td><td>2026-03-16 20:19</td></tr>\n";
  }
  body += "</table>\n</body></html>\n";
  send_text(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n\r\n" + body);
}

void log_request(const std::string& method, const std::string& path, const std::string& range) {
  if (g_log_file.empty()) return;
  std::ofstream(g_log_file, std::ios::app) << method << " " << path << " range=" << (range.empty() ? "-" : range) << "\n";
}

void serve(int fd) {
  std::string request;
  char buffer[4096];
  while (request.find("\r\n\r\n") == std::string::npos) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    request.append(buffer, static_cast<size_t>(n));
  }
  std::istringstream head(request);
  std::string method, path, version, line, range;
  head >> method >> path >> version;
  while (std::getline(head, line)) {
    if (strncasecmp(line.c_str(), "Range: bytes=", 13) == 0) range = line.substr(13, line.find('-') - 13);
  }
  std::string fault;
  {
    std::lock_guard lock(g_mutex);
    std::string faults = g_faults_file.empty() ? "" : read_faults();
    if (faults != g_faults) g_served.clear();
    g_faults = faults;
    if (auto found = fault_for(path, ++g_served[path], faults)) fault = found->kind;
    log_request(method, path, range);
  }
  if (fault == "404") return send_status(fd, 404, "Not Found");
  if (fault == "410") return send_status(fd, 410, "Gone");
  if (fault == "500") return send_status(fd, 500, "Internal Server Error");
  if (send_hostile(fd, fault)) return;
  if (path.find("..") != std::string::npos) return send_status(fd, 400, "Bad Request");
  struct stat folder {};
  struct stat page {};
  if (!path.empty() && path.back() == '/' && ::stat((g_root + path).c_str(), &folder) == 0 && S_ISDIR(folder.st_mode)) {
    // A folder with an index.html is a package index's project page (PEP 503 / 691).
    if (::stat((g_root + path + "index.html").c_str(), &page) == 0 && S_ISREG(page.st_mode)) path += "index.html";
    else return send_listing(fd, path, g_root + path);
  }
  int file = ::open((g_root + path).c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (file < 0 || ::fstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (file >= 0) ::close(file);
    return send_status(fd, 404, "Not Found");
  }
  off_t start = 0;
  bool ignores_range = fault == "no-range" || fault == "no-range-corrupt";
  if (!range.empty() && !ignores_range) start = std::stoll(range);
  if (start > st.st_size) {
    ::close(file);
    return send_status(fd, 416, "Range Not Satisfiable");
  }
  off_t length = st.st_size - start;
  std::string headers = start > 0 || (!range.empty() && !ignores_range)
                            ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(start) + "-" +
                                  std::to_string(st.st_size - 1) + "/" + std::to_string(st.st_size) + "\r\n"
                            : std::string("HTTP/1.1 200 OK\r\n");
  headers += "Content-Type: " + content_type(file, path) + "\r\nContent-Length: " + std::to_string(length) +
             "\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n";
  if (send_text(fd, headers) && method != "HEAD") send_body(fd, file, start, length, fault);
  ::close(file);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--root") g_root = argv[i + 1];
    else if (flag == "--faults") g_faults_file = argv[i + 1];
    else if (flag == "--log") g_log_file = argv[i + 1];
    else if (flag == "--rate") g_rate = std::stod(argv[i + 1]);
  }
  if (g_root.empty()) {
    std::fprintf(stderr, "usage: test_mirror --root DIR [--faults FILE] [--log FILE] [--rate BYTES_PER_SECOND]\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int yes = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener, 64) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    std::perror("test_mirror: bind");
    return 1;
  }
  std::printf("%d\n", ntohs(address.sin_port));
  std::fflush(stdout);
  while (true) {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::thread([fd] {
      serve(fd);
      ::close(fd);
    }).detach();
  }
}
