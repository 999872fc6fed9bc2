#!/usr/bin/python3
"""Typed parameter-sharing IPPO in PyTorch on the DERs task (12 agents of three types).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/ippo_typed.py --total-steps 300000

Independent PPO (de Witt et al. 2020, "Is Independent Learning All You Need in the StarCraft
Multi-Agent Challenge?", arXiv:2011.09533) with typed sharing: the agents of one type (the
module's env.groups(): battery, renewable, flexload) share one actor and one critic, and each
agent acts on its own observation slice (env.agent_obs, PettingZoo parallel style) and learns
from its own reward (env.agent_rewards: info["agent_shaped_reward"], the team reward minus the
task's voltage penalty). Within a group the batch is [T, N, A_g]: every (env, agent) pair is one
column of GAE, with the team's done. Prints the team return while training, then the evaluation
(the iid days `powerzoo eval` walks, mean actions) team return next to zero actions'.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn

import powerzoo


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", default="ders", help="a spec file or preset with a multi-agent env")
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
    p.add_argument("--ent-coef", type=float, default=0.02)
    p.add_argument("--eval-split", default="iid")
    a = p.parse_args()
    if a.total_steps < a.num_envs * a.num_steps:
        p.error(f"--total-steps: expected at least one rollout ({a.num_envs * a.num_steps} "
                f"steps), found {a.total_steps}")
    return a


def mlp(i, o, hidden=64, out_std=np.sqrt(2)):
    layers = [nn.Linear(i, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
              nn.Linear(hidden, o)]
    for layer, std in zip(layers[::2], (np.sqrt(2), np.sqrt(2), out_std)):
        nn.init.orthogonal_(layer.weight, std)
        nn.init.zeros_(layer.bias)
    return nn.Sequential(*layers)


class TypePolicy(nn.Module):
    """One type's shared actor-critic: inputs [..., obs size of the type]."""

    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.mean = mlp(obs_dim, act_dim, out_std=0.01)
        self.logstd = nn.Parameter(torch.full((act_dim,), -0.5))
        self.critic = mlp(obs_dim, 1, out_std=1.0)

    def dist(self, x):
        m = self.mean(x)
        return torch.distributions.Normal(m, self.logstd.exp().expand_as(m))

    def value(self, x):
        return self.critic(x).squeeze(-1)


def stack(per_agent, names):
    """{name: [N, ...]} -> tensor [N, A_g, ...] in the group's agent order."""
    return torch.as_tensor(np.stack([per_agent[n] for n in names], axis=1), dtype=torch.float32)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    env = powerzoo.make_vec(args.spec, num_envs=args.num_envs, seed=args.seed,
                            threads=args.threads)
    if env.n_agents < 2:
        raise SystemExit(f"--spec: expected a multi-agent env, found {env.env_id} (one agent)")
    N, T = env.num_envs, args.num_steps
    groups = env.groups()  # {type: [agent names]}: typed sharing
    size = {a["name"]: (a["obs"].stop - a["obs"].start, a["act"].stop - a["act"].start)
            for a in env.agents}
    nets = {g: TypePolicy(*size[names[0]]) for g, names in groups.items()}
    opts = {g: torch.optim.Adam(nets[g].parameters(), lr=args.learning_rate, eps=1e-5)
            for g in groups}
    low, high = env.action_low, env.action_high

    def act(venv, obs, deterministic=False):
        """Joint actions [N, act_dim] and, per group, (obs, action, log prob, value) tensors."""
        per_obs, per_act, rec = venv.agent_obs(obs), {}, {}
        with torch.no_grad():
            for g, names in groups.items():
                x = stack(per_obs, names)  # [N, A_g, obs]
                d = nets[g].dist(x)
                a = d.mean if deterministic else d.sample()
                rec[g] = (x, a, d.log_prob(a).sum(-1), nets[g].value(x))
                for j, n in enumerate(names):
                    per_act[n] = a[:, j].numpy()
        return np.clip(venv.agent_actions(per_act), low, high), rec

    obs, _ = env.reset()
    num_updates, start, team = args.total_steps // (N * T), time.time(), []
    for update in range(1, num_updates + 1):
        traj = {g: [] for g in groups}
        for t in range(T):
            joint, rec = act(env, obs)
            obs, _, terminated, truncated, info = env.step(joint)
            # Each agent's learner reward [N]: the team reward minus the voltage penalty
            # (info["agent_shaped_reward"]; env.agent_rewards(info) gives the objective alone).
            shaped = info["agent_shaped_reward"]
            per_shaped = {a["name"]: shaped[:, j] for j, a in enumerate(env.agents)}
            final = env.agent_obs(info["final_obs"])
            alive = torch.as_tensor(~terminated, dtype=torch.float32)[:, None]
            done = torch.as_tensor(terminated | truncated, dtype=torch.float32)[:, None]
            for g, names in groups.items():
                with torch.no_grad():
                    nv = nets[g].value(stack(final, names)) * alive
                traj[g].append((*rec[g], stack(per_shaped, names), nv, done.expand(N, len(names))))
            if "episode" in info:
                team += list(info["episode"]["return"][info["_episode"]])
        for g, names in groups.items():
            x, a, logp, v, r, nv, d = (torch.stack(z) for z in zip(*traj[g]))  # [T, N, A_g, ...]
            with torch.no_grad():
                adv, last = torch.zeros_like(r), torch.zeros_like(r[0])
                for t in reversed(range(T)):
                    last = r[t] + args.gamma * nv[t] - v[t] + \
                        args.gamma * args.gae_lambda * (1 - d[t]) * last
                    adv[t] = last
                ret = adv + v
            B = x.shape[0] * x.shape[1] * x.shape[2]
            x, a = x.reshape(B, -1), a.reshape(B, -1)
            logp, adv, ret = logp.reshape(B), adv.reshape(B), ret.reshape(B)
            mb_size = B // args.num_minibatches
            for _ in range(args.update_epochs):
                perm = torch.randperm(B)
                for s in range(0, B, mb_size):
                    mb = perm[s:s + mb_size]
                    dist = nets[g].dist(x[mb])
                    ratio = (dist.log_prob(a[mb]).sum(-1) - logp[mb]).exp()
                    A = (adv[mb] - adv[mb].mean()) / (adv[mb].std() + 1e-8)
                    pg = torch.max(-A * ratio,
                                   -A * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                    v_loss = 0.5 * ((nets[g].value(x[mb]) - ret[mb]) ** 2).mean()
                    loss = pg - args.ent_coef * dist.entropy().sum(-1).mean() + 0.5 * v_loss
                    opts[g].zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(nets[g].parameters(), 0.5)
                    opts[g].step()
        if update % 5 == 0 or update == num_updates:
            print(f"step {update * N * T:>8}  train team return {np.mean(team[-N:]):8.4f}  "
                  f"{update * N * T / (time.time() - start):6.0f} steps/s", flush=True)
    env.close()

    def evaluate(policy):
        ev = powerzoo.make_vec(args.spec, eval=True, split=args.eval_split, seed=args.seed,
                               threads=args.threads)
        o, _ = ev.reset()
        ret = np.full(ev.num_envs, np.nan)
        while np.isnan(ret).any():
            o, _, _, _, info = ev.step(policy(ev, o))
            if "episode" in info:
                m = info["_episode"] & np.isnan(ret)
                ret[m] = info["episode"]["return"][m]
        return ret.mean(), ev.num_envs

    learned, n_ep = evaluate(lambda ev, o: act(ev, o, deterministic=True)[0])
    zero, _ = evaluate(lambda ev, o: np.zeros((o.shape[0], ev.act_dim), np.float32))
    types = ", ".join(f"{g} x{len(n)}" for g, n in groups.items())
    print(f"eval on {args.eval_split} ({n_ep} episodes): team return {learned:.4f}  "
          f"zero actions {zero:.4f}  groups {types}")


if __name__ == "__main__":
    main()
