// /metadata of the world file: where the world came from (docs/format.md, "Provenance").
// Stored as two string attributes and three parallel 1-D datasets, one row per input file,
// so that h5dump and h5py show them without compound types.

#include <nlohmann/json.hpp>

#include <cctype>
#include <string>
#include <vector>

#include "json_nesting.h"
#include "world_file_sections.h"

namespace strata::formats::detail {

namespace {

// The import options are one flat object; a reader refuses text nested deeper than this (a
// value of 50,000 brackets, edited in, overflowed the stack of strata info's JSON parse).
constexpr std::size_t kMaxOptionsNesting = 64;

// Empty, or JSON nested at most kMaxOptionsNesting deep: the problem, or "".
std::string optionsProblem(const std::string& text) {
  if (text.empty()) return {};
  if (jsonNestedDeeperThan(text, kMaxOptionsNesting))
    return "nested more than " + std::to_string(kMaxOptionsNesting) + " arrays or objects deep";
  if (!nlohmann::json::accept(text)) return "not valid JSON";
  if (!nlohmann::json::parse(text).is_object()) return "not a JSON object";
  return {};
}

bool isSha256Hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string validateProvenance(const Provenance& provenance) {
  for (std::size_t i = 0; i < provenance.inputs.size(); ++i)
    if (!isSha256Hex(provenance.inputs[i].sha256))
      return "input " + std::to_string(i) + " (" + provenance.inputs[i].path + "): sha256 is not 64 hex digits";
  if (std::string problem = optionsProblem(provenance.import_options_json); !problem.empty())
    return "import options: " + problem;
  return {};
}

Status writeMetadata(const h5::Location& root, const Provenance& provenance) {
  auto group = h5::createGroup(root, "metadata");
  if (!group) return group.error();
  const h5::Location metadata = root.child(*group, "metadata");
  if (auto s = h5::writeStringAttribute(metadata, "tool_version", provenance.tool_version); !s) return s;
  if (auto s = h5::writeStringAttribute(metadata, "import_options_json", provenance.import_options_json); !s) return s;
  std::vector<std::string> paths, hashes;
  std::vector<std::uint64_t> sizes;
  for (const InputRecord& input : provenance.inputs) {
    paths.push_back(input.path);
    hashes.push_back(input.sha256);
    sizes.push_back(input.bytes);
  }
  if (auto s = h5::writeStringTable(metadata, "input_paths", paths); !s) return s;
  if (auto s = h5::writeStringTable(metadata, "input_sha256", hashes); !s) return s;
  return h5::writeArray<std::uint64_t>(metadata, "input_bytes", sizes);
}

Result<Provenance> readMetadata(const h5::Location& root) {
  auto group = h5::openGroup(root, "metadata");
  if (!group) return group.error();
  const h5::Location metadata = root.child(*group, "metadata");
  Provenance provenance;
  auto tool_version = h5::readStringAttribute(metadata, "tool_version");
  if (!tool_version) return tool_version.error();
  provenance.tool_version = std::move(*tool_version);
  auto options = h5::readStringAttribute(metadata, "import_options_json");
  if (!options) return options.error();
  if (std::string problem = optionsProblem(*options); !problem.empty())
    return Error::badInput(metadata.self() + " attribute import_options_json: " + problem);
  provenance.import_options_json = std::move(*options);

  auto paths = h5::readStringTable(metadata, "input_paths");
  if (!paths) return paths.error();
  auto hashes = h5::readStringTable(metadata, "input_sha256", paths->size());
  if (!hashes) return hashes.error();
  auto sizes = h5::readArray<std::uint64_t>(metadata, "input_bytes", 0, paths->size());
  if (!sizes) return sizes.error();
  for (std::size_t i = 0; i < paths->size(); ++i) {
    if (!isSha256Hex((*hashes)[i]))
      return Error::badInput(metadata.where("input_sha256") + ": row " + std::to_string(i) + " is not 64 hex digits");
    provenance.inputs.push_back(InputRecord{std::move((*paths)[i]), std::move((*hashes)[i]), sizes->values[i]});
  }
  return provenance;
}

}  // namespace strata::formats::detail
