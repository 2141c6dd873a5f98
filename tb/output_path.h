// Output paths checked before a command runs (issue 39, defect 1). Every output is written
// under a temporary name and renamed over its target, so a target that is a device, a FIFO
// or a socket would be replaced by a regular file (as root, /dev/null itself), and one that
// is a directory, or lies in a missing folder, would fail only after the simulation. Every
// command checks each of its outputs with these before anything runs; each throws
// config_error naming the flag and what it accepts (exit 2).
#pragma once

#include <string>
#include <vector>

namespace bcastsim::tb {

// A file to be written whole (replaced): absent in an existing folder, or a regular file (or a
// link to one).
void check_output_file(const std::string& path, const std::string& flag);

// A folder to write into: a directory, or absent and creatable (its nearest existing ancestor
// a directory). `files`: the names the command writes in it, each absent or a regular file;
// a name with one '*' stands for every existing entry it matches (`cosim_*.vcd`).
void check_output_dir(const std::string& dir, const std::string& flag,
                      const std::vector<std::string>& files = {});

// What the file at `path` is when it is not a regular file ("a directory", "a FIFO (named
// pipe)", ...); empty when it is a regular file or does not exist.
std::string not_a_regular_file(const std::string& path);

}  // namespace bcastsim::tb
