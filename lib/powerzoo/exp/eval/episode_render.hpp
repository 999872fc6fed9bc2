// [eval] render_every_steps: pictures of evaluation episodes drawn during training by
// scripts/plot_episode.py in a background process (the seed trainer's video cadence).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace pz::exp {

/// The drawing command: the interpreter ($POWERZOO_PYTHON, else /usr/bin/python3 when present,
/// else python3 on PATH: Debian's, which has python3-h5py and python3-matplotlib) and the script
/// ($POWERZOO_SCRIPTS/plot_episode.py, else the source tree's scripts/ compiled in).
struct RenderTool {
  std::string python;
  std::string script;
};
RenderTool render_tool();

/// Throws core::ConfigError naming [eval] render_every_steps if pictures cannot be drawn here:
/// the script is missing, or the interpreter does not run or lacks h5py or matplotlib. Runs the
/// interpreter once (about a second); nothing is written.
void check_render_tool();

/// Whether the evaluation at global step `step` draws pictures: the first evaluation of a run
/// (`prev_eval` < 0), each evaluation that passes a multiple of `every_steps` since the previous
/// one at `prev_eval`, and the final one (step >= total_steps). Never when every_steps <= 0.
bool render_due(long long step, long long prev_eval, int64_t every_steps, long long total_steps);

/// Draws the episodes of an evaluation into <run_dir>/plots/ (plot_episode.py --all-splits
/// --eval-step N: episode 0 of every split, its time series and, for grid envs, its network) in
/// a child process, so training goes on meanwhile. One drawing at a time: when the next is due
/// while the previous still runs, training waits for it (about 1–3 s per split). The child reads
/// the published run.h5 and writes its output to <run_dir>/plots/render.log, after a line naming
/// the step. A failed drawing (non-zero exit, or no picture written) is reported on stderr once,
/// with a count at the end, and never stops the run: pictures are not results.
class EpisodeRenderer {
 public:
  explicit EpisodeRenderer(std::string run_dir);
  ~EpisodeRenderer();  ///< waits for a drawing in progress
  EpisodeRenderer(const EpisodeRenderer&) = delete;
  EpisodeRenderer& operator=(const EpisodeRenderer&) = delete;

  /// Starts drawing the evaluation recorded at global step `step` (after the previous drawing).
  void draw(long long step);
  /// Waits for the drawing in progress; returns the number of drawings that failed so far.
  int finish();

 private:
  void wait_child();

  std::string run_dir_;
  RenderTool tool_;
  pid_t child_ = -1;
  long long child_step_ = 0;
  int started_ = 0;
  int failed_ = 0;
};

}  // namespace pz::exp
