// exec_floor PROGRAM [ARGS...]: execs PROGRAM and nothing else. Statically linked, it is
// the cheapest possible shim, so "shim vs exec_floor" shows what cudaenv's own work costs
// on top of the exec that any shim pays.
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  execv(argv[1], argv + 1);
  return 127;
}
