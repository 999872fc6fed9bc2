#!/usr/bin/python3
"""PPO-Lagrangian in PyTorch on the DSO task: the voltage cost as its own channel.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/lagrangian_dso.py --total-steps 300000

A constrained MDP (Altman 1999): maximise the return (−0.1 · network loss per step) subject to
E[Σ_t voltage_violation_t] <= d per episode. The cost comes from info["costs"] (never folded into
the reward: make_vec's reward is the objective alone); a second critic estimates the cost
value, and the policy ascends the Lagrangian advantage (A_R − λ·A_C) / (1 + λ) (Ray, Achiam &
Amodei 2019, "Benchmarking Safe Exploration in Deep RL"). λ >= 0 moves by dual ascent once per
update, λ ← max(0, λ + η·(Ĵ_C − d)), with Ĵ_C the mean cost of the episodes that ended in the
rollout: the integral-only controller of Stooke, Achiam & Abbeel 2020 ("Responsive Safety in RL
by PID Lagrangian Methods"). PowerZooJax and powerzoo's own ppo_lagrangian learner
(experiments/dso_safe.toml) take the same step on log λ instead.

The budget d defaults to 0.5 bus-steps per episode, not the zero budget of dso_safe.toml: on the
bundled AEMO shapes the feeder rarely leaves the voltage band (0.02 violations per episode
without control, docs/tasks/dso.md), and with Ĵ_C = d = 0 the multiplier would never move. It
prints the train return, episode cost and λ, then the evaluation (the iid days `powerzoo eval`
walks, mean action) return and cost.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn

import powerzoo


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", default="dso", help="a spec file or task preset with a DSO env")
    p.add_argument("--total-steps", type=int, default=300_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="env worker threads (0 = all cores)")
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--num-steps", type=int, default=48)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--constraint", default="voltage_violation", help="the cost channel")
    p.add_argument("--cost-limit", type=float, default=0.5, help="d: budget per episode")
    p.add_argument("--lambda-init", type=float, default=1.0)
    p.add_argument("--lambda-lr", type=float, default=0.05, help="η: dual step per update")
    p.add_argument("--eval-split", default="iid")
    a = p.parse_args()
    if a.total_steps < a.num_envs * a.num_steps:
        p.error(f"--total-steps: expected at least one rollout ({a.num_envs * a.num_steps} "
                f"steps), found {a.total_steps}")
    return a


class RunningMeanStd:
    """Running mean and variance of the observations; frozen at evaluation."""

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


def mlp(i, o, hidden=64, out_std=np.sqrt(2)):
    layers = [nn.Linear(i, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
              nn.Linear(hidden, o)]
    for layer, std in zip(layers[::2], (np.sqrt(2), np.sqrt(2), out_std)):
        nn.init.orthogonal_(layer.weight, std)
        nn.init.zeros_(layer.bias)
    return nn.Sequential(*layers)


class Agent(nn.Module):
    """Gaussian policy, reward critic and cost critic."""

    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.actor_mean = mlp(obs_dim, act_dim, out_std=0.01)
        self.actor_logstd = nn.Parameter(torch.full((1, act_dim), -0.5))
        self.reward_critic = mlp(obs_dim, 1, out_std=1.0)
        self.cost_critic = mlp(obs_dim, 1, out_std=1.0)

    def values(self, x):
        return self.reward_critic(x).squeeze(-1), self.cost_critic(x).squeeze(-1)

    def dist(self, x):
        mean = self.actor_mean(x)
        return torch.distributions.Normal(mean, self.actor_logstd.expand_as(mean).exp())


def gae(rew, val, next_val, done, gamma, lam):
    """Generalised advantage estimates [T, N], cut at episode ends; next_val is V(final_obs),
    zero at real terminal states."""
    adv, last = torch.zeros_like(rew), torch.zeros(rew.shape[1])
    for t in reversed(range(rew.shape[0])):
        last = rew[t] + gamma * next_val[t] - val[t] + gamma * lam * (1 - done[t]) * last
        adv[t] = last
    return adv


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    env = powerzoo.make_vec(args.spec, num_envs=args.num_envs, seed=args.seed,
                            threads=args.threads)
    if args.constraint not in env.cost_names:
        raise SystemExit(f"--constraint: expected one of {env.cost_names}, found "
                         f"{args.constraint!r}")
    c = env.cost_names.index(args.constraint)
    N, T, od, ad = env.num_envs, args.num_steps, env.obs_dim, env.act_dim
    low, high = env.action_low, env.action_high
    agent = Agent(od, ad)
    opt = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    norm = RunningMeanStd(od)
    lam = args.lambda_init

    buf = {k: torch.zeros((T, N)) for k in ("logp", "rew", "cost", "vr", "vc", "done", "nvr",
                                            "nvc")}
    obs_buf, act_buf = torch.zeros((T, N, od)), torch.zeros((T, N, ad))
    obs, _ = env.reset()
    norm.update(obs)
    num_updates, batch = args.total_steps // (N * T), N * T
    minibatch = batch // args.num_minibatches
    start = time.time()
    for update in range(1, num_updates + 1):
        ep_ret, ep_cost = [], []
        for t in range(T):
            x = norm(obs)
            with torch.no_grad():
                d = agent.dist(x)
                action = d.sample()
                vr, vc = agent.values(x)
            obs, reward, terminated, truncated, info = env.step(np.clip(action.numpy(), low, high))
            norm.update(obs)
            with torch.no_grad():  # the transition's next state, bootstrapped unless terminal
                nvr, nvc = agent.values(norm(info["final_obs"]))
            alive = torch.as_tensor(~terminated, dtype=torch.float32)
            obs_buf[t], act_buf[t] = x, action
            buf["logp"][t] = d.log_prob(action).sum(1)
            buf["rew"][t] = torch.as_tensor(reward)  # the objective alone, no penalty
            buf["cost"][t] = torch.as_tensor(info["costs"][:, c])
            buf["vr"][t], buf["vc"][t] = vr, vc
            buf["nvr"][t], buf["nvc"][t] = nvr * alive, nvc * alive
            buf["done"][t] = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            if "episode" in info:
                m = info["_episode"]
                ep_ret += list(info["episode"]["return"][m])
                ep_cost += list(info["episode"]["cost_sum"][m, c])

        # Dual ascent on λ with this rollout's episodes (before the policy step, as the reference).
        if ep_cost:
            lam = max(0.0, lam + args.lambda_lr * (float(np.mean(ep_cost)) - args.cost_limit))
        with torch.no_grad():
            adv_r = gae(buf["rew"], buf["vr"], buf["nvr"], buf["done"], args.gamma, args.gae_lambda)
            adv_c = gae(buf["cost"], buf["vc"], buf["nvc"], buf["done"], args.gamma,
                        args.gae_lambda)
            ret_r, ret_c = adv_r + buf["vr"], adv_c + buf["vc"]
        b = {"obs": obs_buf.reshape(batch, od), "act": act_buf.reshape(batch, ad),
             "logp": buf["logp"].reshape(-1), "ar": adv_r.reshape(-1), "ac": adv_c.reshape(-1),
             "rr": ret_r.reshape(-1), "rc": ret_c.reshape(-1)}
        for _ in range(args.update_epochs):
            perm = torch.randperm(batch)
            for s in range(0, batch, minibatch):
                mb = perm[s:s + minibatch]
                dist = agent.dist(b["obs"][mb])
                ratio = (dist.log_prob(b["act"][mb]).sum(1) - b["logp"][mb]).exp()
                ar, ac = b["ar"][mb], b["ac"][mb]
                ar = (ar - ar.mean()) / (ar.std() + 1e-8)
                ac = ac - ac.mean()  # centred, not scaled: λ weighs the cost in its own units
                a = (ar - lam * ac) / (1 + lam)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef,
                                                            1 + args.clip_coef)).mean()
                vr, vc = agent.values(b["obs"][mb])
                v_loss = ((vr - b["rr"][mb]) ** 2).mean() + ((vc - b["rc"][mb]) ** 2).mean()
                loss = pg - args.ent_coef * dist.entropy().sum(1).mean() + 0.5 * v_loss
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        if update % 5 == 0 or update == num_updates:
            print(f"step {update * batch:>8}  train return {np.mean(ep_ret):8.4f}  "
                  f"{args.constraint} {np.mean(ep_cost):7.3f}/episode  lambda {lam:.4f}  "
                  f"{update * batch / (time.time() - start):6.0f} steps/s", flush=True)
    env.close()

    ev = powerzoo.make_vec(args.spec, eval=True, split=args.eval_split, seed=args.seed,
                           threads=args.threads)
    obs, _ = ev.reset()
    ret, cost = np.full(ev.num_envs, np.nan), np.full(ev.num_envs, np.nan)
    while np.isnan(ret).any():
        with torch.no_grad():
            act = np.clip(agent.actor_mean(norm(obs)).numpy(), low, high)
        obs, _, _, _, info = ev.step(act)
        if "episode" in info:
            m = info["_episode"] & np.isnan(ret)
            ret[m], cost[m] = info["episode"]["return"][m], info["episode"]["cost_sum"][m, c]
    print(f"eval on {args.eval_split} ({ev.num_envs} episodes): return {ret.mean():.4f}  "
          f"{args.constraint} {cost.mean():.3f}/episode  lambda {lam:.4f} "
          f"(initial {args.lambda_init})")


if __name__ == "__main__":
    main()
