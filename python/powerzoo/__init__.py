"""powerzoo's power-grid environments as a batched, native vector env (docs/custom-loops.md).

    import powerzoo
    env = powerzoo.make_vec("experiments/quickstart.toml", num_envs=64, seed=0, threads=2)
    obs, info = env.reset()
    obs, reward, terminated, truncated, info = env.step(actions)   # actions [64, act_dim]

Conventions (Gymnasium 1.x vector API, EnvPool's batched arrays): obs float32 [N, obs_dim],
reward float32 [N] (the objective only), terminated / truncated bool [N]; the constraint costs are
their own channel, info["costs"] [N, n_costs]. Same-step autoreset: an env whose episode ended in a
step is reset within that step, `obs` is the first observation of its next episode and
info["final_obs"] [N, obs_dim] the observation the step ended in (for every env: the next state of
the transition). info["episode"] (return, length, shaped_return, cost_sum) and the mask
info["_episode"] appear on steps where episodes ended. make_vec(..., info_traces=True) adds the
per-step traces evaluation files record (env.trace_names [N], env.trace_vectors [N, size], the
outage status among them) to info.
"""

import os

import numpy as np

from . import _core

__all__ = ["make_vec", "VecEnv", "InputTypeError"]


class InputTypeError(TypeError, ValueError):
    """An argument of a type make_vec does not take (an override value, info_traces). A TypeError,
    and a ValueError as every other bad input of the module, so either `except` catches it."""


def _override_items(prefix, value):
    """Dotted `key=value` strings for one override (a dict value is a table of keys)."""
    if isinstance(value, dict):
        if not value:
            return [f"{prefix}={{}}"]  # an empty table
        out = []
        for k, v in value.items():
            out += _override_items(f"{prefix}.{k}", v)
        return out
    return [f"{prefix}={_toml_value(prefix, value)}"]


def _toml_value(key, v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v):
            raise ValueError(f"overrides: {key}: expected a finite number, found {v}")
        return repr(float(v))
    if isinstance(v, str):
        return v
    if isinstance(v, os.PathLike):  # a file-valued key (env.outages, env.case, ...)
        return os.fsdecode(os.fspath(v))
    if isinstance(v, (list, tuple)):
        items = [f'"{_toml_value(key, x)}"' if isinstance(x, (str, os.PathLike))
                 else _toml_value(key, x) for x in v]
        return "[" + ", ".join(items) + "]"
    raise InputTypeError(f"overrides: {key}: expected a bool, number, string, path (os.PathLike), "
                         f"list or dict, found {type(v).__name__}")


class VecEnv(_core.VecEnv):
    """N envs of one spec stepped natively (see the module docstring and make_vec)."""

    def agent_obs(self, obs):
        """PettingZoo parallel view: {agent name: obs[:, agent's slice]} of a batch [N, obs_dim]."""
        obs = np.asarray(obs)
        return {a["name"]: obs[..., a["obs"]] for a in self.agents}

    def agent_actions(self, actions):
        """The joint actions [N, act_dim] from {agent name: [N, agent's act size]}; every agent
        must be given (ValueError naming the missing or unknown ones)."""
        if not isinstance(actions, dict):
            raise ValueError("agent_actions: expected a dict {agent name: actions}, found "
                             f"{type(actions).__name__}")
        names = [a["name"] for a in self.agents]
        missing = [n for n in names if n not in actions]
        unknown = [n for n in actions if n not in names]
        if missing or unknown:
            raise ValueError(f"agent_actions: expected the agents {names}, found "
                             f"missing {missing}, unknown {unknown}")
        out = np.zeros((self.num_envs, self.act_dim), dtype=np.float32)
        for a in self.agents:
            sl = a["act"]
            want = (self.num_envs, sl.stop - sl.start)
            arr = np.asarray(actions[a["name"]], dtype=np.float32)
            if arr.shape != want:
                raise ValueError(f"agent_actions: {a['name']}: expected shape {list(want)}, "
                                 f"found {list(arr.shape)}")
            out[:, sl] = arr
        return out

    def agent_rewards(self, info, reward=None):
        """{agent name: [N]} per-agent objective rewards from a step's info (multi-agent envs);
        single-agent envs: {"agent": reward}."""
        if "agent_reward" in info:
            r = info["agent_reward"]
            return {a["name"]: r[:, j] for j, a in enumerate(self.agents)}
        return {self.agents[0]["name"]: reward}

    def groups(self):
        """{group: [agent names]} in agent order: the types of typed parameter sharing."""
        out = {}
        for a in self.agents:
            out.setdefault(a["group"], []).append(a["name"])
        return out

    def sample_actions(self, rng=None):
        """Uniform random actions [N, act_dim] inside the action box (unbounded entries: N(0, 1))."""
        rng = np.random.default_rng() if rng is None else rng
        low, high = self.action_low, self.action_high
        bounded = np.isfinite(low) & np.isfinite(high)
        a = rng.standard_normal((self.num_envs, self.act_dim)).astype(np.float32)
        u = rng.random((self.num_envs, self.act_dim), dtype=np.float32)
        return np.where(bounded, low + u * (high - low), a).astype(np.float32)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return (f"powerzoo.VecEnv({self.env_id}, num_envs={self.num_envs}, split={self.split!r}, "
                f"eval={self.eval}, obs_dim={self.obs_dim}, act_dim={self.act_dim}, "
                f"costs={self.cost_names})")


def make_vec(spec, num_envs=None, seed=None, threads=1, split=None, eval=False, overrides=None,
             info_traces=False):
    """A VecEnv of `spec`: a spec file (TOML), a task preset or an env id (`powerzoo envs`).

    num_envs: envs stepped together (None: the spec's vec.n_envs; with eval=True its
    eval.n_episodes). seed: the Rng seed (None: the spec's experiment.seed). threads: worker
    threads (0 = all cores); results are identical for any number. split: the data split (None:
    env.split; with eval=True the spec's first eval split). eval=True: env k walks the k-th of
    num_envs evenly spaced evaluation episodes of the split with the evaluation Rng streams, as
    `powerzoo eval` and `powerzoo baseline` do, without autoreset. overrides: {dotted key: value}
    as `key=value` on the command line; a file-valued key takes a str or an os.PathLike
    (pathlib.Path). info_traces: the per-step traces step() puts in info, as evaluation
    trajectories record them (False: none, the default, so a plain step pays nothing; True: every
    one of env.trace_names and env.trace_vectors; or a list of their names, e.g. ["gen_status"]).
    The spec's env, reward, safety and eval sections get the checks of `powerzoo validate` (the
    learner sections are not used); bad input raises ValueError with the CLI's message (an
    argument of the wrong type InputTypeError, a TypeError and a ValueError).
    """
    if isinstance(spec, os.PathLike):
        spec = os.fsdecode(os.fspath(spec))
    if not isinstance(spec, str):
        raise ValueError(f"spec: expected a spec file, task preset or env id (str), found "
                         f"{type(spec).__name__}")
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, dict):
        raise ValueError(f"overrides: expected a dict {{dotted key: value}}, found "
                         f"{type(overrides).__name__}")
    items = []
    for k, v in overrides.items():
        if not isinstance(k, str):
            raise ValueError(f"overrides: expected string keys, found {k!r}")
        items += _override_items(k, v)
    for name, v in (("num_envs", num_envs), ("threads", threads), ("seed", seed)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
            raise ValueError(f"{name}: expected an integer, found {v!r}")
    if num_envs is not None and num_envs < 1:
        raise ValueError(f"num_envs: expected an integer >= 1, found {num_envs}")
    if split is not None and not isinstance(split, str):
        raise ValueError(f"split: expected a split name (str), found {split!r}")
    if info_traces is None or isinstance(info_traces, (bool, np.bool_)):
        traces = bool(info_traces)
    elif isinstance(info_traces, (list, tuple)) and all(isinstance(n, str) for n in info_traces):
        traces = list(info_traces)
    else:
        raise InputTypeError(f"info_traces: expected True, False or a list of trace names (str), "
                             f"found {info_traces!r}")
    return VecEnv(spec, 0 if num_envs is None else int(num_envs), seed,
                  int(threads), split or "", bool(eval), items, traces)
