#include "cli/command.h"

int main(int argc, char** argv) { return cudaenv::run_cli(argc, argv); }
