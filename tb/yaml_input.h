// Reading the YAML files a user gives (scenarios, studies): the one careful loader, so a
// hostile or careless file is refused with a message naming the file and position (exit 2)
// instead of escaping as a yaml-cpp exception, being read without bound or silently half-read.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace bcastsim::tb {

// Larger than any real scenario or study by far; /dev/zero and the like stop here.
constexpr uint64_t max_input_file_bytes = uint64_t{16} << 20;
// Nodes of a document with every alias expanded: bounds "billion laughs" documents.
constexpr uint64_t max_yaml_nodes = 1000000;

// Where `text` stops being UTF-8 (strict: no overlong forms, surrogates or code points past
// U+10FFFF), or npos. YAML and JSON are UTF-8: a value that is not would be refused, late and
// without a key, by the JSON writer of result.json or study.json.
size_t invalid_utf8_at(const std::string& text);

// Throws config_error(key) when `text` is not UTF-8, naming the byte and its position.
void check_utf8(const std::string& text, const std::string& key, const std::string& where);

// The whole content of `path`, which must be a readable regular file of at most `max_bytes`;
// throws config_error(key) naming `what` ("scenario file") otherwise.
std::string read_input_file(const std::string& path, const std::string& key,
                            const std::string& what, uint64_t max_bytes = max_input_file_bytes);

// Calls `line(text, number)` for each line of `path` (numbered from 1, without its '\n'),
// with the checks of read_input_file: for files too large to hold whole (replay recordings).
void read_input_lines(const std::string& path, const std::string& key, const std::string& what,
                      uint64_t max_bytes,
                      const std::function<void(const std::string&, uint64_t)>& line);

// Whether `key` names a file the run reads (topology.file): relative to the scenario file
// that gives it, and part of what a sweep's point stands for (tb/sweep/inputs.h).
bool is_input_file_key(const std::string& key);
// `value` read from a file in `folder`: relative to that folder (lexically normal); an
// absolute or empty value, or an empty folder (the working directory), unchanged.
std::string resolve_input_path(const std::string& value, const std::string& folder);

// One YAML document parsed from `text` (from `origin`, for messages). Refused with
// config_error(key): a parse error, more than one document, a key that is not a plain
// scalar (`? [a, b]`), a key given twice in one mapping, an alias to a node still being
// defined, or more than max_yaml_nodes nodes once aliases are expanded.
YAML::Node load_yaml(const std::string& text, const std::string& origin, const std::string& key);

}  // namespace bcastsim::tb
