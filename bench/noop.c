/* noop: a program that does nothing, built static against musl (bench/CMakeLists.txt): the
 * floor under any program's start on this machine, for bench/start. */
int main(void) { return 0; }
