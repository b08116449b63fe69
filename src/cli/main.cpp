// kprof: check, time and profile one GPU kernel. See README.md. The command line is cli/entry.hpp.
#include <string>
#include <vector>

#include "cli/entry.hpp"

int main(int argc, char** argv) { return kprof::cli_main(std::vector<std::string>(argv, argv + argc)); }
