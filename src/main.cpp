// cuda-l2-tune: see src/cli/ for the subcommands and README.md for their use.
#include "cli/commands.hpp"

int main(int argc, char** argv) { return cl2::run_cli(argc, argv); }
