"""Rail-only paper, eq. 3: which readings of the bandwidths give its printed slow-downs, 8.2% (DGX
A100) and 11.2% (DGX H100), at once? (docs/reproductions.md, "Rail-only (paper 002, §III-IV)").

    python3 benchmarks/railonly_eq3_readings.py

Every combination of an HB-bandwidth reading, a NIC-bandwidth reading, a formula and a grid
(x = 8 GPUs per domain, y domains) is evaluated for both platforms; a combination counts when both
values round to the printed ones. "Consistent" means the same reading, formula and y for both
platforms (the paper states one formula for both); mixed readings are listed separately.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

GIB = 2**30 / 1e9  # GB in one GiB
# Per-GPU bandwidths in GB/s, each reading for (DGX A100, DGX H100).
HB_READINGS = {
    "vendor, each direction (300 / 450 GB/s)": (300.0, 450.0),
    "two-way total (600 / 900 GB/s)": (600.0, 900.0),
    "GB/s read as GiB/s": (300 * GIB, 450 * GIB),
}
NIC_READINGS = {
    "data rate (200 / 400 Gb/s)": (25.0, 50.0),
    "two-way total": (50.0, 100.0),
    "in GiB/s": (25 / GIB, 50 / GIB),
    "line rate (HDR 212.5 / NDR 425 Gb/s)": (212.5 / 8, 425 / 8),
    "64b/66b payload": (25 * 64 / 66, 50 * 64 / 66),
}
GRIDS = [*range(2, 65), 128, 256, 1024]  # y; x = 8 on both DGX platforms
FORMULAS: dict[str, Callable[[float, float, int, int], float]] = {
    "C_S/C_F (the paper's approximation)": lambda cs, cf, x, y: cs / cf,
    "eq. 3 / eq. 2 - 1": lambda cs, cf, x, y: y * (x - 1) / (x * (y - 1)) * cs / cf,
    "forwarding term / eq. 3": lambda cs, cf, x, y: (y * (x - 1) / cf) / (x * (y - 1) / cs + y * (x - 1) / cf),
    "C_S/(C_F - C_S)": lambda cs, cf, x, y: cs / (cf - cs),
    "C_S/(C_F + C_S)": lambda cs, cf, x, y: cs / (cf + cs),
}
PRINTED = (8.2, 11.2)


def main() -> None:
    consistent, mixed, tried = [], [], 0
    for (f, formula), y in itertools.product(FORMULAS.items(), GRIDS):
        for (hb_a, cf_a), (hb_h, cf_h) in itertools.product(HB_READINGS.items(), repeat=2):
            for (nic_a, cs_a), (nic_h, cs_h) in itertools.product(NIC_READINGS.items(), repeat=2):
                tried += 1
                a100 = 100 * formula(cs_a[0], cf_a[0], 8, y)
                h100 = 100 * formula(cs_h[1], cf_h[1], 8, y)
                if (round(a100, 1), round(h100, 1)) != PRINTED:
                    continue
                row = f"{f}, y = {y}: A100 {a100:.3f}% ({hb_a}; {nic_a}), H100 {h100:.3f}% ({hb_h}; {nic_h})"
                (consistent if (hb_a, nic_a) == (hb_h, nic_h) else mixed).append(row)
    print(f"{tried} combinations; both printed values at once:")
    print(f"  consistent (one reading for both platforms): {len(consistent)}")
    for row in consistent:
        print("    " + row)
    print(f"  mixed readings: {len(mixed)}")
    for row in mixed:
        print("    " + row)


if __name__ == "__main__":
    main()
