// Evaluation metrics per split in result files, and the translation from and to flat names.
#include "powerzoo/exp/run/eval_layout.hpp"

#include <exception>
#include <sstream>

#include "powerzoo/io/hdf5.hpp"

namespace pz::exp {

bool is_shared_eval_column(const std::string& name) {
  return name == "global_step" || name == "wall_time" || name.rfind("throughput/", 0) == 0;
}

namespace {

// The split of flat name `name` among splits[1..] ("load_stress/return_mean" -> 1), or 0.
size_t split_of(const std::string& name, const std::vector<std::string>& splits) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return 0;
  for (size_t s = 1; s < splits.size(); ++s)
    if (name.compare(0, slash, splits[s]) == 0 && splits[s].size() == slash) return s;
  return 0;
}

}  // namespace

std::map<std::string, double> per_split_eval_row(const std::map<std::string, double>& flat,
                                                 const std::vector<std::string>& splits) {
  std::map<std::string, double> out;
  for (const auto& [k, v] : flat) {
    if (is_shared_eval_column(k) || splits.empty())
      out[k] = v;
    else if (split_of(k, splits) > 0)
      out[k] = v;  // already "<split>/<column>"
    else
      out[splits[0] + "/" + k] = v;
  }
  return out;
}

void append_eval_row(io::RunFile& out, const std::map<std::string, double>& flat,
                     const std::vector<std::string>& splits) {
  out.append_row("metrics/eval", per_split_eval_row(flat, splits));
}

EvalLayout read_eval_layout(const std::string& file) {
  EvalLayout l;
  std::string attr;
  try {
    attr = io::read_string_attr(file, kEvalSplitsAttr);
  } catch (const std::exception&) {
    return l;  // written before the per-split layout
  }
  l.per_split = true;
  std::istringstream names(attr);
  for (std::string s; std::getline(names, s, ',');) l.splits.push_back(s);
  return l;
}

std::string eval_column_path(const EvalLayout& l, const std::string& flat_name) {
  if (!l.per_split || l.splits.empty() || is_shared_eval_column(flat_name) ||
      split_of(flat_name, l.splits) > 0)
    return flat_name;
  return l.splits[0] + "/" + flat_name;
}

std::string flat_eval_name(const EvalLayout& l, const std::string& rel) {
  if (!l.per_split || l.splits.empty()) return rel;
  const std::string main = l.splits[0] + "/";
  return rel.rfind(main, 0) == 0 ? rel.substr(main.size()) : rel;
}

}  // namespace pz::exp
