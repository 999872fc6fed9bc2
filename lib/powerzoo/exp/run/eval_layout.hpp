// The layout of evaluation metrics in result files: metrics/eval/<split>/<column> for every
// split, and reading the older layout (the first split's columns bare under metrics/eval).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pz::io {
class RunFile;
}

namespace pz::exp {

/// Root attribute of a result file with the per-split layout: its eval splits, comma-separated,
/// the main one (spec eval.splits[0], or `eval`'s one split) first. Files without it (written
/// before the layout) keep the main split's columns bare under metrics/eval.
inline constexpr const char* kEvalSplitsAttr = "eval_splits";

/// True for the columns an evaluation row shares across its splits, which stay directly under
/// metrics/eval: global_step, wall_time and throughput/*.
bool is_shared_eval_column(const std::string& name);

/// An evaluation row in flat naming (the main split's columns bare, split s > 0's as
/// "<split>/<column>", shared columns bare; what the checkpoint history and progress.csv hold)
/// in the per-split layout: "<split>/<column>" for every split, shared columns bare.
std::map<std::string, double> per_split_eval_row(const std::map<std::string, double>& flat,
                                                 const std::vector<std::string>& splits);

/// Appends a flat evaluation row to metrics/eval of `out` in the per-split layout.
void append_eval_row(io::RunFile& out, const std::map<std::string, double>& flat,
                     const std::vector<std::string>& splits);

/// How a result file lays out metrics/eval.
struct EvalLayout {
  bool per_split = false;           ///< kEvalSplitsAttr present
  std::vector<std::string> splits;  ///< from kEvalSplitsAttr (main first); empty for old files
};

/// Reads the layout of `file` (old layout when the attribute or the file cannot be read).
EvalLayout read_eval_layout(const std::string& file);

/// The path under metrics/eval of the flat column `flat_name` in a file of layout `l`.
std::string eval_column_path(const EvalLayout& l, const std::string& flat_name);

/// The flat name of `rel`, a dataset path under metrics/eval of a file of layout `l`.
std::string flat_eval_name(const EvalLayout& l, const std::string& rel);

}  // namespace pz::exp
