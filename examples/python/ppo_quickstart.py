#!/usr/bin/python3
"""PPO in PyTorch on the quickstart env through the powerzoo module, CleanRL style.

    make python
    PYTHONPATH=build/python /usr/bin/python3 examples/python/ppo_quickstart.py --total-steps 200000

One file in the spirit of CleanRL's ppo_continuous_action.py (Huang et al. 2022,
https://github.com/vwxyzjn/cleanrl): a Gaussian policy with a state-independent log std, GAE,
the clipped surrogate objective, minibatch epochs, a running mean / std of the observations.
The env is experiments/quickstart.toml (PJM case5 dispatched through GB demand days) with its
hyperparameters (32 envs, 48-step rollouts, 4 epochs of 4 minibatches); the learner trains on
info["shaped_reward"], the spec's penalty view
(reward − 0.02·power_balance − 0.02·thermal_overload).

Two details CleanRL's Gymnasium loop does not need: same-step autoreset hands the last
observation of a finished episode in info["final_obs"], so a time-limit truncation bootstraps from
V(final_obs) instead of treating the time limit as a terminal state; and the evaluation walks the
episodes `powerzoo eval` walks (make_vec(..., eval=True, split="iid")) with the mean action, next
to the zero_action baseline on the same episodes (= `powerzoo baseline SPEC --policy zero_action`).

Deterministic for a seed: torch.manual_seed, one torch thread, and the env's own Rng streams
(identical for any --threads).
"""
import argparse
import pathlib
import time

import numpy as np
import torch
import torch.nn as nn

import powerzoo

ROOT = pathlib.Path(__file__).resolve().parents[2]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", default=str(ROOT / "experiments" / "quickstart.toml"))
    p.add_argument("--total-steps", type=int, default=500_000, help="env steps of training")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="env worker threads (0 = all cores)")
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--num-steps", type=int, default=48, help="rollout length per update")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--eval-split", default="iid")
    a = p.parse_args()
    if a.total_steps < a.num_envs * a.num_steps:
        p.error(f"--total-steps: expected at least one rollout ({a.num_envs * a.num_steps} "
                f"steps), found {a.total_steps}")
    return a


class RunningMeanStd:
    """Running mean and variance of the observations (Chan et al.'s parallel update, as CleanRL's
    NormalizeObservation wrapper); frozen at evaluation."""

    def __init__(self, dim):
        self.mean, self.var, self.count = np.zeros(dim), np.ones(dim), 1e-4

    def update(self, x):
        m, v, n = x.mean(0), x.var(0), x.shape[0]
        delta, tot = m - self.mean, self.count + n
        self.mean = self.mean + delta * n / tot
        self.var = (self.var * self.count + v * n + delta**2 * self.count * n / tot) / tot
        self.count = tot

    def __call__(self, x):
        z = (x - self.mean) / np.sqrt(self.var + 1e-8)
        return torch.as_tensor(np.clip(z, -10, 10), dtype=torch.float32)


def layer_init(layer, std=np.sqrt(2), bias=0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=64):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0))
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, act_dim), std=0.01))
        # log std −0.5, as powerzoo's own PPO ([ppo] init_log_std); CleanRL starts at 0.
        self.actor_logstd = nn.Parameter(torch.full((1, act_dim), -0.5))

    def value(self, x):
        return self.critic(x).squeeze(-1)

    def action_and_value(self, x, action=None):
        mean = self.actor_mean(x)
        dist = torch.distributions.Normal(mean, self.actor_logstd.expand_as(mean).exp())
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action).sum(1), dist.entropy().sum(1), self.value(x)


def evaluate(spec, split, seed, threads, act_fn):
    """Mean return and shaped return of the evaluation episodes of `split` (the episodes, order
    and Rng streams of `powerzoo eval`): env k plays episode k and stops when it ends."""
    env = powerzoo.make_vec(spec, eval=True, split=split, seed=seed, threads=threads)
    obs, _ = env.reset()
    ret = np.full(env.num_envs, np.nan)
    shaped = np.full(env.num_envs, np.nan)
    while np.isnan(ret).any():
        obs, _, _, _, info = env.step(act_fn(obs))
        if "episode" in info:
            done = info["_episode"] & np.isnan(ret)
            ret[done] = info["episode"]["return"][done]
            shaped[done] = info["episode"]["shaped_return"][done]
    env.close()
    return ret.mean(), shaped.mean()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: one thread is fastest, and the sums are fixed
    torch.use_deterministic_algorithms(True)

    env = powerzoo.make_vec(args.spec, num_envs=args.num_envs, seed=args.seed,
                            threads=args.threads)
    N, T, od, ad = env.num_envs, args.num_steps, env.obs_dim, env.act_dim
    low, high = env.action_low, env.action_high
    agent = Agent(od, ad)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    norm = RunningMeanStd(od)

    obs_buf = torch.zeros((T, N, od))
    act_buf = torch.zeros((T, N, ad))
    logp_buf, rew_buf, val_buf = torch.zeros((T, N)), torch.zeros((T, N)), torch.zeros((T, N))
    done_buf, next_val_buf = torch.zeros((T, N)), torch.zeros((T, N))

    num_updates = args.total_steps // (N * T)
    batch = N * T
    minibatch = batch // args.num_minibatches
    obs, _ = env.reset()
    norm.update(obs)
    episode_returns = []
    start = time.time()
    for update in range(1, num_updates + 1):
        # Learning rate annealed linearly to 0, as CleanRL (anneal_lr).
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - (update - 1) / num_updates)
        for t in range(T):
            x = norm(obs)
            with torch.no_grad():
                action, logp, _, value = agent.action_and_value(x)
            obs, _, terminated, truncated, info = env.step(np.clip(action.numpy(), low, high))
            norm.update(obs)
            obs_buf[t], act_buf[t], logp_buf[t], val_buf[t] = x, action, logp, value
            rew_buf[t] = torch.as_tensor(info["shaped_reward"])
            done_buf[t] = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            # The transition's next state is final_obs (for every env); a real terminal state
            # has no future value, a time-limit truncation keeps its bootstrap.
            with torch.no_grad():
                nv = agent.value(norm(info["final_obs"]))
            next_val_buf[t] = nv * torch.as_tensor(~terminated, dtype=torch.float32)
            if "episode" in info:
                episode_returns += list(info["episode"]["shaped_return"][info["_episode"]])

        # GAE (Schulman et al. 2016), cut at episode ends (the next column is another episode).
        with torch.no_grad():
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                delta = rew_buf[t] + args.gamma * next_val_buf[t] - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * (1 - done_buf[t]) * last
                adv[t] = last
            ret = adv + val_buf

        b_obs, b_act = obs_buf.reshape(batch, od), act_buf.reshape(batch, ad)
        b_logp, b_adv, b_ret = logp_buf.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        for _ in range(args.update_epochs):
            perm = torch.randperm(batch)
            for s in range(0, batch, minibatch):
                mb = perm[s:s + minibatch]
                _, logp, entropy, value = agent.action_and_value(b_obs[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef,
                                                                 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        if update % 10 == 0 or update == num_updates:
            recent = np.mean(episode_returns[-N:]) if episode_returns else float("nan")
            print(f"step {update * batch:>8}  train shaped return {recent:9.3f}  "
                  f"{update * batch / (time.time() - start):7.0f} steps/s", flush=True)
    env.close()

    def policy(o):
        with torch.no_grad():
            return np.clip(agent.actor_mean(norm(o)).numpy(), low, high)

    ev = (args.spec, args.eval_split, args.seed, args.threads)
    ppo_ret, ppo_shaped = evaluate(*ev, policy)
    zero_ret, zero_shaped = evaluate(*ev, lambda o: np.zeros((o.shape[0], ad), np.float32))
    print(f"eval on {args.eval_split}: ppo return {ppo_ret:.3f} (shaped {ppo_shaped:.3f})  "
          f"zero_action return {zero_ret:.3f} (shaped {zero_shaped:.3f})")


if __name__ == "__main__":
    main()
