#pragma once
// The subcommands, each registered on the application by its own file.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace cl2 {

// What --l2's three policies mean, shared by tune and bench (each adds what it does with it).
inline constexpr const char* kL2PolicyHelp =
    "Where operands are when each timed call starts: warm (the same A, B, C every call, so what fits "
    "stays in L2), rotate (back-to-back calls cycle through copies of A, B, C larger than 3x the L2, so "
    "operands come from DRAM, as consecutive model layers; our sm90 kernels are launched to overlap the "
    "previous call, requesting their weights B while it finishes, which is valid where B is not written "
    "by the kernel before, as model weights are not), flush (each call alone after overwriting the L2)";

// Each adder creates its subcommand and returns what runs it (exit status) once parsed.
using CommandRunner = std::function<int()>;

CommandRunner add_tune_command(CLI::App& app);
CommandRunner add_export_command(CLI::App& app);
CommandRunner add_show_command(CLI::App& app);
CommandRunner add_worker_command(CLI::App& app);
CommandRunner add_bench_command(CLI::App& app);
CommandRunner add_merge_command(CLI::App& app);
CommandRunner add_compare_command(CLI::App& app);
CommandRunner add_profile_command(CLI::App& app);
CommandRunner add_calibrate_command(CLI::App& app);

// "a,b,c" -> {"a", "b", "c"} (option values that take lists).
std::vector<std::string> split_list(const std::string& text);

int run_cli(int argc, char** argv);

}  // namespace cl2
