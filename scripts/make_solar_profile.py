#!/usr/bin/python3
"""Generates data/profiles/gb_solar_synthetic_30min.csv: a physically based GB solar PV
capacity-factor series for calendar year 2025 (30-minute UTC intervals).

Why: the GB solar generation series the reference tasks use is not bundled, so the DERs and
DC-microgrid tasks use this stand-in. Method (data/README.md has the full description):
  1. Solar position every 5 minutes from Spencer's (1971) Fourier series for declination,
     equation of time and the Earth-Sun distance, as in the NOAA solar calculator.
  2. Clear-sky global horizontal irradiance by Haurwitz (1945): 1098·cos z·exp(−0.059/cos z) W/m².
  3. Clear-sky PV output = performance ratio 0.85 · GHI/1000 W/m² (horizontal-irradiance proxy
     for a mixed-orientation fleet), averaged over each half hour.
  4. Cloudiness: clearness multiplier k = sigmoid(a_month + 1.2·z_day + 0.6·w_halfhour), with z
     a day-to-day AR(1) (φ = 0.5) and w a half-hourly AR(1) (φ = 0.8), both N(0, 1) stationary
     and seeded; a_month is found by bisection so that each month's mean capacity factor equals
     the target below.
The output is deterministic (Python's random.Random(seed)); running the script again
reproduces the committed file byte for byte.

Usage: /usr/bin/python3 scripts/make_solar_profile.py [--out PATH] [--seed N]
"""
import argparse
import datetime as dt
import math
import random

LAT_DEG, LON_DEG = 52.5, -1.5  # central England (east-positive longitude)
YEAR = 2025
PERFORMANCE_RATIO = 0.85
# Monthly GB solar PV capacity factors (fraction of installed capacity), Jan..Dec: an approximate
# seasonal cycle with a ~10 % annual mean, in line with the UK's published annual solar PV load
# factors (about 10-11 %). Not official monthly statistics.
MONTHLY_TARGET = [0.032, 0.060, 0.098, 0.140, 0.156, 0.160, 0.152, 0.135, 0.108, 0.070, 0.038, 0.022]
PHI_DAY, PHI_HALF_HOUR = 0.5, 0.8
W_DAY, W_HALF_HOUR = 1.2, 0.6
SUBSTEPS = 6  # 5-minute samples per half hour


def cos_zenith(t):
    """Cosine of the solar zenith angle at UTC datetime t (Spencer 1971 / NOAA)."""
    doy = t.timetuple().tm_yday
    hour = t.hour + t.minute / 60 + t.second / 3600
    g = 2 * math.pi / 365 * (doy - 1 + (hour - 12) / 24)
    decl = (0.006918 - 0.399912 * math.cos(g) + 0.070257 * math.sin(g) - 0.006758 * math.cos(2 * g)
            + 0.000907 * math.sin(2 * g) - 0.002697 * math.cos(3 * g) + 0.00148 * math.sin(3 * g))
    eot_min = 229.18 * (0.000075 + 0.001868 * math.cos(g) - 0.032077 * math.sin(g)
                        - 0.014615 * math.cos(2 * g) - 0.040849 * math.sin(2 * g))
    true_solar_min = hour * 60 + eot_min + 4 * LON_DEG
    omega = math.radians(true_solar_min / 4 - 180)
    lat = math.radians(LAT_DEG)
    return math.sin(lat) * math.sin(decl) + math.cos(lat) * math.cos(decl) * math.cos(omega)


def clear_sky_cf(t0):
    """Mean clear-sky PV capacity factor over the half hour starting at t0."""
    acc = 0.0
    for k in range(SUBSTEPS):
        cz = cos_zenith(t0 + dt.timedelta(minutes=5 * k + 2.5))
        if cz > 0:
            acc += PERFORMANCE_RATIO * 1098 * cz * math.exp(-0.059 / cz) / 1000
    return acc / SUBSTEPS


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data/profiles/gb_solar_synthetic_30min.csv")
    ap.add_argument("--seed", type=int, default=2025)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = dt.datetime(YEAR, 1, 1)
    n = 17520 if YEAR % 4 else 17568
    times = [start + dt.timedelta(minutes=30 * i) for i in range(n)]
    clear = [clear_sky_cf(t) for t in times]
    # Latent weather: one value per day and one per half hour.
    z, w = [], []
    zd = rng.gauss(0, 1)
    wh = rng.gauss(0, 1)
    for i in range(n):
        if i % 48 == 0 and i > 0:
            zd = PHI_DAY * zd + math.sqrt(1 - PHI_DAY**2) * rng.gauss(0, 1)
        if i > 0:
            wh = PHI_HALF_HOUR * wh + math.sqrt(1 - PHI_HALF_HOUR**2) * rng.gauss(0, 1)
        z.append(zd)
        w.append(wh)
    cf = [0.0] * n
    for m in range(12):
        idx = [i for i in range(n) if times[i].month == m + 1]
        mean_clear = sum(clear[i] for i in idx) / len(idx)
        if MONTHLY_TARGET[m] >= mean_clear:
            raise SystemExit(f"month {m + 1}: target {MONTHLY_TARGET[m]} >= clear-sky {mean_clear:.4f}")

        def month_mean(a):
            return sum(clear[i] * sigmoid(a + W_DAY * z[i] + W_HALF_HOUR * w[i]) for i in idx) / len(idx)

        lo, hi = -20.0, 20.0
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if month_mean(mid) < MONTHLY_TARGET[m] else (lo, mid)
        a = (lo + hi) / 2
        for i in idx:
            cf[i] = clear[i] * sigmoid(a + W_DAY * z[i] + W_HALF_HOUR * w[i])
    with open(args.out, "w", newline="\n") as f:
        f.write("startTime,solar_cf\n")
        for t, v in zip(times, cf):
            f.write(f"{t.strftime('%Y-%m-%dT%H:%M:%S')}.000Z,{v:.6f}\n")
    annual = sum(cf) / n
    print(f"wrote {args.out}: {n} rows, annual mean capacity factor {annual:.4f}, peak {max(cf):.4f}")


if __name__ == "__main__":
    main()
