#!/usr/bin/python3
# tests/nn/make_optim_cases.py - writes tests/data/optim/optim_cases.json from PyTorch 1.13.
#
#   /usr/bin/python3 tests/nn/make_optim_cases.py
#
# Each optimizer case runs 10 steps of torch.optim on a small fixed problem
# (two float64 parameters and a loss mixing quadratics, sines and a coupling
# term, so the gradients change from step to step) and records the
# parameters after every step and the first parameter's final state. Each
# scheduler case steps an optimizer with two groups and records the lrs
# (and momenta) after every step; each group case runs an optimizer with
# two groups of their own options and changes some options mid-run. tests/nn/optim_cases_test.cpp replays them.
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "optim", "optim_cases.json")


def make_params():
    w1 = torch.tensor([0.5, -1.2, 2.0], requires_grad=True)
    w2 = torch.tensor([[1.0, -0.3], [0.7, 1.5]], requires_grad=True)
    return w1, w2


def loss_fn(w1, w2):
    # Must match optim_cases_test.cpp's loss.
    a = torch.tensor([1.0, 0.5, -0.5])
    c = torch.tensor([1.0, 2.0, 0.5])
    quad1 = ((w1 - a) ** 2 * c).sum()
    quad2 = ((w2 - 0.25) ** 2).sum()
    wave = torch.sin(w1 * 3.0).sum() + torch.sin(w2 * 2.0).sum() * 0.5
    coupling = w1.sum() * w2.sum() * 0.1
    return quad1 + quad2 + wave + coupling


OPTIMIZER_CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.02, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.05, "betas": [0.8, 0.99], "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "maximize": True, "eps": 1e-3}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.5, "amsgrad": True}),
    ("AdamW", {"lr": 0.05, "betas": [0.5, 0.9], "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "weight_decay": 0.1, "eps": 1e-4}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.1, "eps": 1e-3, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1, "eps": 1e-4}),
    ("Adadelta", {"lr": 0.5, "maximize": True}),
    ("Adamax", {"lr": 0.1}),
    ("Adamax", {"lr": 0.05, "betas": [0.7, 0.9], "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.05, "eps": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "betas": [0.8, 0.95], "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("RAdam", {"lr": 0.1}),
    # beta2 = 0.5 makes rho_t exceed 5 from the first steps: the rectified branch.
    ("RAdam", {"lr": 0.05, "betas": [0.9, 0.5], "weight_decay": 0.1}),
    ("LBFGS", {"lr": 0.5, "max_iter": 4}),
    ("LBFGS", {"lr": 1.0, "max_iter": 5, "history_size": 3, "line_search_fn": "strong_wolfe"}),
    ("LBFGS", {"lr": 0.2, "max_iter": 20, "max_eval": 7, "tolerance_change": 1e-6}),
]


def flat(ts):
    out = []
    for t in ts:
        out.extend(t.detach().reshape(-1).tolist())
    return out


def run_optimizer(name, options):
    w1, w2 = make_params()
    kwargs = dict(options)
    if "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    opt = getattr(torch.optim, name)([w1, w2], **kwargs)
    trajectory = []
    losses = []

    def closure():
        opt.zero_grad()
        loss = loss_fn(w1, w2)
        loss.backward()
        return loss

    for _ in range(10):
        if name == "LBFGS":
            losses.append(float(opt.step(closure)))
        else:
            losses.append(float(closure()))
            opt.step()
        trajectory.append(flat([w1, w2]))
    state = {}
    if name != "LBFGS":
        for key, value in opt.state[w1].items():
            if key == "step":
                state[key] = [float(value)]
            elif torch.is_tensor(value):
                state[key] = value.reshape(-1).tolist()
    return {"optimizer": name, "options": options, "params": trajectory, "losses": losses, "state": state}


GROUP_CASES = [
    # (optimizer, defaults, second group's own options, step at which the
    # options change, {group index: {option: new value}})
    ("SGD", {"lr": 0.05, "momentum": 0.9}, {"lr": 0.01, "nesterov": True}, 4, {0: {"lr": 0.2}, 1: {"momentum": 0.5}}),
    ("Adam", {"lr": 0.05}, {"betas": [0.5, 0.9], "amsgrad": True}, 5, {0: {"lr": 0.01}, 1: {"weight_decay": 0.1}}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5}, {"centered": True}, 3, {1: {"lr": 0.05, "alpha": 0.5}}),
]


def run_groups(name, defaults, second, change_at, changes):
    w1, w2 = make_params()
    kwargs = dict(defaults)
    opt = getattr(torch.optim, name)([{"params": [w1]}, dict({"params": [w2]}, **second)], **kwargs)
    for g in opt.param_groups:
        if "betas" in g:
            g["betas"] = tuple(g["betas"])
    trajectory = []
    for step in range(10):
        if step == change_at:
            for gi, opts in changes.items():
                opt.param_groups[gi].update(opts)
        opt.zero_grad()
        loss_fn(w1, w2).backward()
        opt.step()
        trajectory.append(flat([w1, w2]))
    return {"optimizer": name, "defaults": defaults, "second": second, "change_at": change_at,
            "changes": {str(k): v for k, v in changes.items()}, "params": trajectory}


def scheduler_cases():
    cases = []

    def run(name, make, opt_name="SGD", opt_kwargs=None, steps=15, metrics=None):
        w = torch.zeros(2, requires_grad=True)
        v = torch.zeros(1, requires_grad=True)
        opt_kwargs = opt_kwargs or {"lr": 0.1, "momentum": 0.9}
        opt = getattr(torch.optim, opt_name)([{"params": [w]}, {"params": [v], "lr": 0.03}], **opt_kwargs)
        sched = make(opt)
        lrs = [[g["lr"] for g in opt.param_groups]]
        momenta = [[momentum_of(g) for g in opt.param_groups]]
        for i in range(steps):
            opt.step()
            if metrics is not None:
                sched.step(metrics[i])
            else:
                sched.step()
            lrs.append([g["lr"] for g in opt.param_groups])
            momenta.append([momentum_of(g) for g in opt.param_groups])
        cases.append({"name": name, "optimizer": opt_name, "lrs": lrs, "momenta": momenta})

    def momentum_of(g):
        return g["betas"][0] if "betas" in g else g.get("momentum", 0.0)

    S = torch.optim.lr_scheduler
    run("StepLR", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
    run("MultiStepLR", lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3))
    run("ExponentialLR", lambda o: S.ExponentialLR(o, gamma=0.9))
    run("CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, T_max=6, eta_min=0.001), steps=20)
    run("LambdaLR", lambda o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1.0 / (1 + e)]))
    run("OneCycleLR_cos", lambda o: S.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=15), steps=14)
    run("OneCycleLR_linear_three_phase",
        lambda o: S.OneCycleLR(o, max_lr=0.8, epochs=4, steps_per_epoch=4, anneal_strategy="linear",
                               three_phase=True, pct_start=0.25, div_factor=10.0, final_div_factor=100.0),
        steps=15)
    run("OneCycleLR_adam", lambda o: S.OneCycleLR(o, max_lr=0.01, total_steps=12, base_momentum=0.8,
                                                  max_momentum=0.9), opt_name="Adam",
        opt_kwargs={"lr": 0.001}, steps=11)
    run("OneCycleLR_no_momentum", lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=10, cycle_momentum=False),
        steps=9)
    plateau = [1.0, 0.9, 0.95, 0.96, 0.97, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85, 0.7, 0.71, 0.72, 0.73, 0.74, 0.75]
    run("ReduceLROnPlateau_min_rel",
        lambda o: S.ReduceLROnPlateau(o, patience=2, factor=0.5, cooldown=1, min_lr=[0.01, 0.02]),
        steps=len(plateau), metrics=plateau)
    rising = [0.1, 0.2, 0.2, 0.2001, 0.2, 0.19, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    run("ReduceLROnPlateau_max_abs",
        lambda o: S.ReduceLROnPlateau(o, mode="max", threshold=0.01, threshold_mode="abs", patience=1,
                                      factor=0.1, eps=1e-3),
        steps=len(rising), metrics=rising)
    return cases


def main():
    data = {
        "optimizers": [run_optimizer(name, options) for name, options in OPTIMIZER_CASES],
        "groups": [run_groups(*case) for case in GROUP_CASES],
        "schedulers": scheduler_cases(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print("wrote", os.path.relpath(OUT), len(data["optimizers"]), "optimizer cases,", len(data["groups"]), "group cases,",
          len(data["schedulers"]),
          "scheduler cases")


if __name__ == "__main__":
    main()
